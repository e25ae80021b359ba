/**
 * `POST /keys`, `GET /keys` and `DELETE /keys/{hash}` over HTTP on PGlite and PostgreSQL: a raw key is shown
 * once, only hashes are listed, a revoked key stops working at once, management and inference keys stay in
 * their lanes, and another account's keys are out of reach. The last management key: last-management-key.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredentialGateway, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

interface IssuedKey {
  key: string;
  hash: string;
  name: string | null;
  kind: string;
  workspace_id: string;
  created_at: string;
}

describe.each(testDrivers())('gateway API keys on %s', (driver) => {
  let context: CredentialGateway;
  const issue = async (kind: 'management' | 'inference', name?: string, key?: string) => {
    const response = await context.call<{ data: IssuedKey }>('POST', '/keys', { body: { kind, ...(name ? { name } : {}) }, ...(key ? { key } : {}) });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  };

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
  });
  afterAll(async () => {
    await context?.close();
  });

  it('issues a key once, with its SHA-256 hash, in the caller’s workspace', async () => {
    const issued = await issue('inference', 'ci');
    expect(issued).toEqual({
      key: expect.stringMatching(/^sb-[A-Za-z0-9_-]{43}$/),
      hash: createHash('sha256').update(issued.key).digest('hex'),
      name: 'ci',
      kind: 'inference',
      workspace_id: context.gateway.workspace_id,
      created_at: expect.any(String),
      limit: null,
      limit_reset: null,
      requests_per_minute: null,
      tokens_per_minute: null,
      max_concurrent_streams: null,
    });
    const listed = await context.call<{ data: Record<string, unknown>[]; total: number }>('GET', '/keys?limit=100');
    expect(listed.status).toBe(200);
    const entry = listed.body.data.find((key) => key.hash === issued.hash);
    const { key: _key, ...stored } = issued;
    expect(entry).toEqual({
      ...stored,
      usage: { cost: 0, limit_remaining: null, period_start: null, resets_at: null, requests_last_minute: null, tokens_last_minute: null, concurrent_streams: null },
    });
    expect(JSON.stringify(listed.body)).not.toContain(issued.key);
    expect(JSON.stringify(listed.body)).not.toContain(context.gateway.management_key);
  });

  it('pages the list newest first', async () => {
    const total = (await context.call<{ total: number }>('GET', '/keys')).body.total;
    const newest = await issue('inference', 'newest');
    const page = await context.call<{ data: { hash: string }[]; total: number; offset: number; limit: number }>('GET', '/keys?limit=1');
    expect(page.body).toMatchObject({ total: total + 1, offset: 0, limit: 1 });
    expect(page.body.data.map((key) => key.hash)).toEqual([newest.hash]);
  });

  it('a new inference key calls nothing of management; a new management key manages', async () => {
    const inference = await issue('inference');
    expect((await context.call('GET', '/byok', { key: inference.key })).status).toBe(403);
    expect((await context.call('POST', '/keys', { key: inference.key, body: { kind: 'management' } })).status).toBe(403);
    const management = await issue('management');
    expect((await context.call('GET', '/byok', { key: management.key })).status).toBe(200);
    const messages = await context.call('POST', '/messages', {
      key: management.key,
      body: { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(messages.status).toBe(403);
  });

  it('a revoked key answers 401 at once and leaves the list', async () => {
    const issued = await issue('management');
    expect((await context.call('GET', '/keys', { key: issued.key })).status).toBe(200);
    expect(await context.call('DELETE', `/keys/${issued.hash}`)).toEqual({ status: 204, body: undefined });
    const after = await context.call('GET', '/keys', { key: issued.key });
    expect(after.status).toBe(401);
    const listed = await context.call<{ data: { hash: string }[] }>('GET', '/keys?limit=100');
    expect(listed.body.data.map((key) => key.hash)).not.toContain(issued.hash);
    expect(await context.call('DELETE', `/keys/${issued.hash}`)).toEqual({ status: 404, body: { error: { code: 404, message: 'Resource not found' } } });
  });

  it('a revoked inference key is refused on /messages at once, after calls that warmed the key cache', async () => {
    const inference = await issue('inference');
    const body = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };
    // Authenticated each time (no provider key is configured here, so the answer is the routing's, not a 401).
    for (let call = 0; call < 3; call += 1) {
      const answer = await context.call<{ error: { code: number; message: string } }>('POST', '/messages', { key: inference.key, body });
      expect(answer.status, JSON.stringify(answer.body)).not.toBe(401);
      expect(answer.status).not.toBe(403);
    }
    expect((await context.call('DELETE', `/keys/${inference.hash}`)).status).toBe(204);
    const refused = await context.call('POST', '/messages', { key: inference.key, body });
    expect(refused).toMatchObject({ status: 401, body: { type: 'error', error: { type: 'authentication_error' } } });
  });

  it('another account’s key cannot be listed or revoked (404), and still works', async () => {
    const listed = await context.call<{ data: { hash: string }[] }>('GET', '/keys?limit=100');
    expect(listed.body.data.map((key) => key.hash)).not.toContain(context.other.api_key_hash);
    expect((await context.call('DELETE', `/keys/${context.other.api_key_hash}`)).status).toBe(404);
    expect((await context.call('GET', '/keys', { key: context.other.management_key })).status).toBe(200);
  });

  it.each([
    ['an unknown kind', { kind: 'root' }],
    ['no kind', {}],
    ['an unknown field', { kind: 'inference', scope: 'all' }],
    ['a name over 255 characters', { kind: 'inference', name: 'n'.repeat(256) }],
  ])('rejects %s with 400', async (_name, body) => {
    const response = await context.call('POST', '/keys', { body });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^Invalid request parameters/);
  });

  it('rejects a malformed hash with 400 and answers 401 without a key', async () => {
    expect((await context.call('DELETE', '/keys/not-a-hash')).status).toBe(400);
    expect(await context.call('GET', '/keys', { key: undefined })).toEqual({ status: 401, body: { error: { code: 401, message: 'Missing Authentication header' } } });
  });
});
