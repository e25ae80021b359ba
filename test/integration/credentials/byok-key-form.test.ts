/**
 * The wire form of a BYOK `key` over HTTP, on PGlite and PostgreSQL: always a string; for openai and fireworks
 * a string holding the JSON text `{"api_key", "region"}` is a region-bound key whose region becomes
 * `declared_region` on create and again on every rotation, and whose label is masked from the API key inside.
 * A JSON object in place of the string, malformed region-bound strings, and a key a header cannot carry (a
 * pasted newline), answer 400 with the reason, never a 500, and the key appears in no answer and no log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByokCredential, ByokCredentialPage } from '#src/api-types.ts';
import { startCredentialGateway, distinctiveKey, regionBoundKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

const FORM = '{"api_key": "…", "region": "us"|"europe"}';
const OBJECT_REFUSED = `Invalid request parameters: key must be a string; for openai and fireworks a region-bound key is the JSON text ${FORM}`;
const NOT_HEADER_TEXT = (field: string) =>
  `${field} must be text an HTTP header can carry (it is sent to the provider as one): tabs, printable ASCII and Latin-1, no line breaks or other control characters`;

const BLANK = 'key is blank (only white space): send the provider key itself';

type Answer = { data: ByokCredential; error: { code: number; message: string; details?: unknown } };

describe.each(testDrivers())('the BYOK key form on %s', (driver) => {
  let context: CredentialGateway;
  const post = (body: unknown) => context.call<Answer>('POST', '/byok', { body });
  const patch = (id: string, body: unknown) => context.call<Answer>('PATCH', `/byok/${id}`, { body });
  const total = async () => (await context.call<ByokCredentialPage>('GET', '/byok?limit=1')).body.total;

  /** The key is in no answer body and no log line. */
  const expectUnseen = (secret: string, answer: unknown) => {
    expect(JSON.stringify(answer)).not.toContain(secret);
    expect(context.gateway.logs.join('\n')).not.toContain(secret);
  };

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
  });
  afterAll(async () => {
    await context?.close();
  });

  describe('create', () => {
    it.each(['openai', 'fireworks'])('%s: derives the region from a region-bound key and masks the API key inside', async (provider) => {
      const apiKey = distinctiveKey('sk-');
      const response = await post({ provider, key: regionBoundKey(apiKey, 'europe') });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.data).toMatchObject({ provider, declared_region: 'europe', label: `sk-…${apiKey.slice(-4)}` });
      expectUnseen(apiKey, response.body);
      expect(await context.vault.open((await context.row(response.body.data.id))!, response.body.data.id)).toEqual({ apiKey, region: 'europe' });
    });

    it('takes any other openai string as a plain key without region', async () => {
      const apiKey = distinctiveKey('sk-proj-');
      const created = await context.create({ provider: 'openai', key: apiKey });
      expect(created).toMatchObject({ declared_region: null, label: `sk-…${apiKey.slice(-4)}` });
    });

    it('takes a region-bound key written over several lines (its api_key has none)', async () => {
      const apiKey = distinctiveKey('sk-');
      const created = await context.create({ provider: 'openai', key: JSON.stringify({ api_key: apiKey, region: 'us' }, null, 2) });
      expect(await context.vault.open((await context.row(created.id))!, created.id)).toEqual({ apiKey, region: 'us' });
    });

    it('keeps a JSON document key of another provider as it is', async () => {
      const document = JSON.stringify({ token: distinctiveKey('tk-'), tenant: 'acme' });
      const created = await context.create({ provider: 'azure', key: document });
      expect(created.declared_region).toBeNull();
      expect(await context.vault.open((await context.row(created.id))!, created.id)).toEqual({ apiKey: document, region: null });
    });

    it('refuses a JSON object in place of the key string, naming the expected form', async () => {
      const before = await total();
      const apiKey = distinctiveKey('sk-');
      const response = await post({ provider: 'openai', key: { api_key: apiKey, region: 'europe' } });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(OBJECT_REFUSED);
      expectUnseen(apiKey, response.body);
      expect(await total()).toBe(before);
    });

    it.each<[string, string, (apiKey: string) => string, string]>([
      ['invalid JSON', 'openai', (apiKey) => `{"api_key": "${apiKey}", "region": europe}`, `key starts with "{" but is not a JSON object: a region-bound openai key is the JSON text ${FORM}`],
      ['no api_key', 'fireworks', () => JSON.stringify({ region: 'us' }), `key has no api_key (a non-empty string): a region-bound fireworks key is the JSON text ${FORM}`],
      ['a bad region', 'openai', (apiKey) => JSON.stringify({ api_key: apiKey, region: 'asia' }), `key has no valid region ("us" or "europe"): a region-bound openai key is the JSON text ${FORM}`],
      ['another property', 'openai', (apiKey) => JSON.stringify({ api_key: apiKey, region: 'us', org: 'o' }), `key has properties other than api_key and region: a region-bound openai key is the JSON text ${FORM}`],
      ['a region-bound key for anthropic', 'anthropic', (apiKey) => regionBoundKey(apiKey, 'us'), `a region-bound key ${FORM} is only accepted for openai and fireworks (for anthropic, send the key itself)`],
      // Stored, such a key failed every request upstream.
      ['a key of spaces only', 'anthropic', () => '   ', BLANK],
      ['a key of a tab and spaces', 'openai', () => ' \t ', BLANK],
      ['a region-bound key whose api_key is spaces', 'openai', () => JSON.stringify({ api_key: '  ', region: 'europe' }), `key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
      // Stored, such a key failed every request before it reached the provider, as a 502 "connection".
      ['a key pasted with its newline', 'anthropic', (apiKey) => `${apiKey}\n`, NOT_HEADER_TEXT('key')],
      ['a control character in a key', 'openai', (apiKey) => `${apiKey.slice(0, 10)}\u0007${apiKey.slice(10)}`, NOT_HEADER_TEXT('key')],
      ['a line break in a region-bound api_key', 'openai', (apiKey) => regionBoundKey(`${apiKey}\r\n`, 'us'), NOT_HEADER_TEXT("key's api_key")],
      // The document is the key, sent whole in the header: written over several lines it failed every request.
      ['a JSON document key written over several lines', 'azure', (apiKey) => JSON.stringify({ token: apiKey, tenant: 'acme' }, null, 2), `${NOT_HEADER_TEXT('key')}; a JSON document key is sent whole, so write it on one line`],
      ['a control character in a JSON document key', 'anthropic', (apiKey) => `{"token": "${apiKey}\u0007"}`, `${NOT_HEADER_TEXT('key')}; a JSON document key is sent whole, so write it on one line`],
    ])('refuses %s with 400 and the reason', async (_name, provider, key, reason) => {
      const before = await total();
      const apiKey = distinctiveKey('sk-');
      const response = await post({ provider, key: key(apiKey) });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 400, message: `Invalid request parameters: ${reason}` });
      expectUnseen(apiKey, response.body);
      expect(await total()).toBe(before);
    });
  });

  describe('rotation (PATCH key)', () => {
    it.each(['openai', 'fireworks'])('%s: re-derives the region from every new key and regenerates the label', async (provider) => {
      const created = await context.create({ provider, key: regionBoundKey(distinctiveKey('sk-'), 'us') });
      expect(created.declared_region).toBe('us');

      const europeKey = distinctiveKey('sk-');
      const europe = await patch(created.id, { key: regionBoundKey(europeKey, 'europe') });
      expect(europe.status, JSON.stringify(europe.body)).toBe(200);
      expect(europe.body.data).toMatchObject({ declared_region: 'europe', label: `sk-…${europeKey.slice(-4)}` });
      expectUnseen(europeKey, europe.body);

      const plainKey = distinctiveKey('sk-');
      const plain = await patch(created.id, { key: plainKey });
      expect(plain.body.data).toMatchObject({ declared_region: null, label: `sk-…${plainKey.slice(-4)}` });

      const usKey = distinctiveKey('sk-');
      const us = await patch(created.id, { key: regionBoundKey(usKey, 'us') });
      expect(us.body.data).toMatchObject({ declared_region: 'us', label: `sk-…${usKey.slice(-4)}` });
      expect(await context.vault.open((await context.row(created.id))!, created.id)).toEqual({ apiKey: usKey, region: 'us' });
    });

    it('a region-bound key and a matching declaration in one change', async () => {
      const created = await context.create({ provider: 'openai', key: distinctiveKey('sk-') });
      const response = await patch(created.id, { key: regionBoundKey(distinctiveKey('sk-'), 'europe'), declared_region: 'europe' });
      expect(response.body.data.declared_region).toBe('europe');
    });

    it.each<[string, (apiKey: string) => unknown, string]>([
      ['a JSON object in place of the string', (apiKey) => ({ api_key: apiKey, region: 'europe' }), OBJECT_REFUSED],
      ['invalid JSON', (apiKey) => `{api_key: ${apiKey}}`, `Invalid request parameters: key starts with "{" but is not a JSON object: a region-bound openai key is the JSON text ${FORM}`],
      ['an empty api_key', () => JSON.stringify({ api_key: '', region: 'us' }), `Invalid request parameters: key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
      ['a bad region', (apiKey) => JSON.stringify({ api_key: apiKey, region: null }), `Invalid request parameters: key has no valid region ("us" or "europe"): a region-bound openai key is the JSON text ${FORM}`],
      ['a key pasted with its newline', (apiKey) => `${apiKey}\r\n`, `Invalid request parameters: ${NOT_HEADER_TEXT('key')}`],
      ['a key of spaces only', () => '    ', `Invalid request parameters: ${BLANK}`],
    ])('refuses %s and leaves the credential as it was', async (_name, key, message) => {
      const created = await context.create({ provider: 'openai', key: regionBoundKey(distinctiveKey('sk-'), 'us') });
      const before = await context.row(created.id);
      const apiKey = distinctiveKey('sk-');
      const response = await patch(created.id, { key: key(apiKey), name: 'renamed' });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toBe(message);
      expectUnseen(apiKey, response.body);
      expect(await context.row(created.id)).toEqual(before);
    });
  });
});
