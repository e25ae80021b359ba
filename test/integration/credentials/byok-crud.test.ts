/**
 * `POST /byok`, `GET /byok`, `GET /byok/{id}` and `DELETE /byok/{id}` over HTTP on PGlite and PostgreSQL, and
 * tenancy: every attempt on another account's credential answers 404 exactly like a missing one and changes
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByokCredential, ByokCredentialPage } from '#src/api-types.ts';
import { startCredentialGateway, distinctiveKey, regionBoundKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

const EMPTY_ALLOWED_MODELS =
  'allowed_models is empty: the credential would serve no model, yet with is_required still remove shared capacity for every model (list at least one model, or write null for no restriction)';
const NOT_FOUND = { status: 404, body: { error: { code: 404, message: 'Resource not found' } } };

describe.each(testDrivers())('BYOK credentials on %s', (driver) => {
  let context: CredentialGateway;

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
  });
  afterAll(async () => {
    await context?.close();
  });

  describe('POST /byok', () => {
    it('stores a plain key with every default and answers 201 with the masked label', async () => {
      const key = distinctiveKey('sk-ant-');
      const response = await context.call<{ data: ByokCredential }>('POST', '/byok', { body: { provider: 'anthropic', key } });
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        workspace_id: context.gateway.workspace_id,
        provider: 'anthropic',
        name: null,
        label: `sk-…${key.slice(-4)}`,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        disabled: false,
        is_fallback: false,
        is_byok_only: false,
        is_required: false,
        sort_order: 0,
        allowed_api_key_hashes: null,
        allowed_models: null,
        allowed_user_ids: null,
        declared_region: null,
        declared_zdr: null,
      });
      expect(JSON.stringify(response.body)).not.toContain(key);
    });

    it('stores every optional field', async () => {
      const body = {
        provider: 'azure',
        key: distinctiveKey('azure-'),
        workspace_id: context.gateway.workspace_id,
        name: 'EU deployment',
        disabled: true,
        is_byok_only: true,
        is_required: true,
        sort_order: -2,
        allowed_api_key_hashes: [context.gateway.api_key_hash],
        allowed_models: ['openai/gpt-5'],
        allowed_user_ids: ['user-7'],
        declared_region: 'europe',
        declared_zdr: false,
      };
      const created = await context.create(body);
      const { key: _key, ...visible } = body;
      expect(created).toMatchObject(visible);
    });

    it('derives the region of a region-bound key', async () => {
      const created = await context.create({ provider: 'fireworks', key: regionBoundKey(distinctiveKey('fw_'), 'us') });
      expect(created.declared_region).toBe('us');
    });

    it.each([
      ['a missing key', { provider: 'anthropic' }, /^Invalid request parameters/],
      ['a missing provider', { key: 'sk-0123456789abcdef' }, /^Invalid request parameters/],
      ['a malformed provider slug', { provider: 'Open AI', key: 'sk-0123456789abcdef' }, /^Invalid request parameters/],
      ['an empty key', { provider: 'anthropic', key: '' }, /^Invalid request parameters/],
      ['a JSON object as the key', { provider: 'openai', key: { api_key: 'sk-0123456789abcdef', region: 'us' } }, /key must be a string/],
      ['a region-bound key for anthropic', { provider: 'anthropic', key: regionBoundKey('sk-0123456789abcdef', 'us') }, /only accepted for openai and fireworks/],
      ['is_fallback with is_byok_only', { provider: 'anthropic', key: 'sk-0123456789abcdef', is_fallback: true, is_byok_only: true }, /is_fallback cannot be combined with is_byok_only/],
      ['is_required with is_fallback', { provider: 'anthropic', key: 'sk-0123456789abcdef', is_fallback: true, is_required: true }, /is_required is only valid on a non-fallback credential/],
      ['declared_region europe for google', { provider: 'google', key: 'AIza0123456789abcdef', declared_region: 'europe' }, /not accepted for google/],
      ['a region that contradicts the key', { provider: 'openai', key: regionBoundKey('sk-0123456789abcdef', 'us'), declared_region: 'europe' }, /does not match/],
      ['an unknown field', { provider: 'anthropic', key: 'sk-0123456789abcdef', colour: 'blue' }, /^Invalid request parameters/],
      ['a model listed twice', { provider: 'openai', key: 'sk-0123456789abcdef', allowed_models: ['openai/gpt-5', 'openai/*', 'openai/gpt-5'] }, 'Invalid request parameters: allowed_models[2] repeats allowed_models[0]: "openai/gpt-5" (each entry may be listed once)'],
      // A credential for no model, which with is_required still removed shared capacity for every model.
      ['an empty allowed_models', { provider: 'anthropic', key: 'sk-0123456789abcdef', allowed_models: [], is_required: true }, `Invalid request parameters: ${EMPTY_ALLOWED_MODELS}`],
      ['a user listed twice', { provider: 'openai', key: 'sk-0123456789abcdef', allowed_user_ids: ['user-7', 'user-7'] }, 'Invalid request parameters: allowed_user_ids[1] repeats allowed_user_ids[0]: "user-7" (each entry may be listed once)'],
    ])('rejects %s with 400', async (_name, body, message) => {
      const before = await context.call<ByokCredentialPage>('GET', '/byok?limit=1');
      const response = await context.call('POST', '/byok', { body });
      expect(response.status).toBe(400);
      if (typeof message === 'string') expect(response.body.error.message).toBe(message);
      else expect(response.body.error.message).toMatch(message);
      expect((await context.call<ByokCredentialPage>('GET', '/byok?limit=1')).body.total).toBe(before.body.total);
    });

    it('rejects another account’s key hash and workspace', async () => {
      const foreignHash = await context.call('POST', '/byok', {
        body: { provider: 'anthropic', key: 'sk-0123456789abcdef', allowed_api_key_hashes: [context.other.api_key_hash] },
      });
      expect(foreignHash.status).toBe(400);
      expect(foreignHash.body.error.message).toBe('Invalid request parameters: allowed_api_key_hashes[0] is not a live API key of this account');
      const foreignWorkspace = await context.call('POST', '/byok', {
        body: { provider: 'anthropic', key: 'sk-0123456789abcdef', workspace_id: context.other.workspace_id },
      });
      expect(foreignWorkspace.status).toBe(400);
      expect(foreignWorkspace.body.error.message).toBe('Invalid request parameters: workspace_id is not a workspace of this account');
    });
  });

  describe('GET /byok', () => {
    it('pages with offset and limit and filters by provider and workspace', async () => {
      const ids: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        ids.push((await context.create({ provider: 'groq', key: distinctiveKey('gsk_'), sort_order: index })).id);
      }
      const first = await context.call<ByokCredentialPage>('GET', '/byok?provider=groq&limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 5, offset: 0, limit: 2 });
      expect(first.body.data.map((credential) => credential.id)).toEqual(ids.slice(0, 2));
      const last = await context.call<ByokCredentialPage>('GET', '/byok?provider=groq&offset=4&limit=2');
      expect(last.body.data.map((credential) => credential.id)).toEqual(ids.slice(4));
      const beyond = await context.call<ByokCredentialPage>('GET', '/byok?provider=groq&offset=10');
      expect(beyond.body).toMatchObject({ data: [], total: 5, offset: 10, limit: 50 });
      const inWorkspace = await context.call<ByokCredentialPage>(`GET`, `/byok?provider=groq&workspace_id=${context.gateway.workspace_id}`);
      expect(inWorkspace.body.total).toBe(5);
      const otherWorkspace = await context.call<ByokCredentialPage>('GET', `/byok?workspace_id=${context.other.workspace_id}`);
      expect(otherWorkspace.body).toMatchObject({ data: [], total: 0 });
    });

    it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=ten', 'provider=Not%20A%20Slug', 'workspace_id=nope', 'colour=blue'])(
      'rejects %s with 400',
      async (query) => {
        const response = await context.call('GET', `/byok?${query}`);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe(400);
      },
    );
  });

  describe('GET and DELETE /byok/{id}', () => {
    it('reads one credential, deletes it with 204 and its key material, then answers 404', async () => {
      const created = await context.create({ provider: 'mistral', key: distinctiveKey('mistral-') });
      expect(await context.call('GET', `/byok/${created.id}`)).toEqual({ status: 200, body: { data: created } });
      const deleted = await context.call('DELETE', `/byok/${created.id}`);
      expect(deleted).toEqual({ status: 204, body: undefined });
      expect(await context.row(created.id)).toBeUndefined();
      expect(await context.call('GET', `/byok/${created.id}`)).toEqual(NOT_FOUND);
      expect(await context.call('DELETE', `/byok/${created.id}`)).toEqual(NOT_FOUND);
    });

    it('answers 403 to an inference key and 401 without a key', async () => {
      const created = await context.create({ provider: 'mistral', key: distinctiveKey('mistral-') });
      for (const [method, path] of [['GET', '/byok'], ['GET', `/byok/${created.id}`], ['DELETE', `/byok/${created.id}`], ['POST', '/byok']] as const) {
        const body = method === 'POST' ? { provider: 'anthropic', key: 'sk-0123456789abcdef' } : undefined;
        const forbidden = await context.call(method, path, { key: context.gateway.api_key, body });
        expect(forbidden, `${method} ${path}`).toEqual({ status: 403, body: { error: { code: 403, message: 'Only management keys can perform this operation' } } });
        const anonymous = await context.call(method, path, { key: undefined, body });
        expect(anonymous, `${method} ${path}`).toEqual({ status: 401, body: { error: { code: 401, message: 'Missing Authentication header' } } });
      }
      expect(await context.row(created.id)).toBeDefined();
    });
  });

  describe('tenancy', () => {
    it('answers 404 to every attempt on another account’s credential and changes nothing', async () => {
      const victim = await context.create({ provider: 'openai', key: regionBoundKey(distinctiveKey('sk-'), 'europe'), name: 'victim' });
      const before = await context.row(victim.id);
      const attacker = context.other.management_key;
      const missing = 'bdc3b584-3220-4c89-bab7-50b5edec1497';
      for (const id of [victim.id, missing]) {
        expect(await context.call('GET', `/byok/${id}`, { key: attacker })).toEqual(NOT_FOUND);
        expect(await context.call('PATCH', `/byok/${id}`, { key: attacker, body: { name: 'mine', disabled: true } })).toEqual(NOT_FOUND);
        expect(await context.call('PATCH', `/byok/${id}`, { key: attacker, body: { key: 'sk-attacker-0123456789' } })).toEqual(NOT_FOUND);
        expect(await context.call('DELETE', `/byok/${id}`, { key: attacker })).toEqual(NOT_FOUND);
      }
      const listed = await context.call<ByokCredentialPage>('GET', '/byok?limit=100', { key: attacker });
      expect(listed.body.data.map((credential) => credential.id)).not.toContain(victim.id);
      expect(await context.row(victim.id)).toEqual(before);
      expect(await context.call('GET', `/byok/${victim.id}`)).toEqual({ status: 200, body: { data: victim } });
    });
  });
});
