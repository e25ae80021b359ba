/**
 * Every error answered in Anthropic's shape names its request, as Anthropic's API does on every answer: a
 * `request_id` in the body and the same value in the `request-id` header, which the Anthropic SDKs read into
 * `APIError.requestID`. Before, only the `/messages` operations' errors had one; a path the spec does not
 * have, a near miss of another path and the models operations' errors had none. Those make no generation, so
 * they carry no `X-Generation-Id`. Errors in the management shape (`ErrorBody`) name theirs in the
 * `request-id` header alone, their body unchanged for the clients generated from the spec; every such id is
 * in the gateway's log line about the error. Raw fetch and the Anthropic SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const ID = /^gen_[0-9a-z]{9}[A-Za-z0-9_-]{15}$/;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function rejection(call: PromiseLike<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const caught = await Promise.resolve(call).then(
    () => null,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(Anthropic.APIError);
  return caught as InstanceType<typeof Anthropic.APIError>;
}

describe('an error without a generation names its request', () => {
  it.each<{ name: string; method: string; path: string; status: number; key?: 'api' | 'management'; body?: unknown }>([
    { name: 'a path the spec does not have (GET)', method: 'GET', path: '/api/v1/nope', status: 404, key: 'management' },
    { name: 'a path the spec does not have (POST)', method: 'POST', path: '/api/v1/does-not-exist', status: 404, key: 'api', body: { a: 1 } },
    { name: 'a near miss of a management path', method: 'GET', path: '/api/v1/BYOK', status: 404, key: 'management' },
    { name: 'GET /models with a limit out of range', method: 'GET', path: '/api/v1/models?limit=0', status: 400, key: 'api' },
    { name: 'GET /models without a key', method: 'GET', path: '/api/v1/models', status: 401 },
    { name: 'GET /models/{model_id} of a model the catalog has not', method: 'GET', path: '/api/v1/models/openai/gpt-nope', status: 404, key: 'api' },
    // Anthropic's message batches, which the gateway does not serve: under the /messages prefix, but no generation.
    { name: 'a path under /messages the spec does not have', method: 'POST', path: '/api/v1/messages/batches', status: 404, key: 'api', body: { requests: [] } },
  ])('$name: request_id in the body, the same in request-id', async ({ method, path, status, key, body }) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key === 'api' ? gateway.api_key : gateway.management_key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.origin}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    expect(response.status).toBe(status);
    const answer = (await response.json()) as { type: string; request_id?: string };
    expect(answer.type).toBe('error');
    expect(answer.request_id).toMatch(ID);
    expect(response.headers.get('request-id')).toBe(answer.request_id);
    expect(response.headers.get('x-generation-id')).toBeNull();
  });

  it('two errors name two requests', async () => {
    const [first, second] = await Promise.all([fetch(`${gateway.origin}/api/v1/nope`), fetch(`${gateway.origin}/api/v1/nope`)]);
    expect(first?.headers.get('request-id')).toMatch(ID);
    expect(first?.headers.get('request-id')).not.toBe(second?.headers.get('request-id'));
  });
});

/** The gateway's log lines naming `id` as their request_id. */
function loggedWith(id: string): Record<string, unknown>[] {
  return gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.request_id === id);
}

describe('an error in the management shape names its request in request-id alone', () => {
  const HASH = 'a'.repeat(64);
  const UUID = '7d2c5e1a-0000-4000-8000-00000000abcd';
  it.each<{ name: string; method: string; path: string; status: number; key?: 'api' | 'management'; body?: unknown }>([
    { name: 'DELETE /keys/{hash} of no key', method: 'DELETE', path: `/api/v1/keys/${HASH}`, status: 404, key: 'management' },
    { name: 'GET /byok/{id} of no credential', method: 'GET', path: `/api/v1/byok/${UUID}`, status: 404, key: 'management' },
    { name: 'GET /generations/{id} of no generation', method: 'GET', path: `/api/v1/generations/gen_${'a'.repeat(24)}`, status: 404, key: 'management' },
    { name: 'GET /observability/destinations/{id} of no destination', method: 'GET', path: `/api/v1/observability/destinations/${UUID}`, status: 404, key: 'management' },
    { name: 'POST /keys without kind', method: 'POST', path: '/api/v1/keys', status: 400, key: 'management', body: { name: 'x' } },
    { name: 'POST /observability/destinations without kind', method: 'POST', path: '/api/v1/observability/destinations', status: 400, key: 'management', body: { name: 'x' } },
    { name: 'GET /keys without a key', method: 'GET', path: '/api/v1/keys', status: 401 },
    { name: 'GET /keys with an inference key', method: 'GET', path: '/api/v1/keys', status: 403, key: 'api' },
  ])('$name: request-id, the body unchanged, the id in the log line', async ({ method, path, status, key, body }) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key === 'api' ? gateway.api_key : gateway.management_key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.origin}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    expect(response.status).toBe(status);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toEqual({ error: expect.objectContaining({ code: status, message: expect.any(String) }) });
    const id = response.headers.get('request-id');
    expect(id).toMatch(ID);
    expect(response.headers.get('x-generation-id')).toBeNull();
    expect(loggedWith(id!)).toEqual([expect.objectContaining({ method, path, status })]);
  });
});

describe('through the Anthropic SDK, APIError.requestID is the body\'s request_id', () => {
  it.each<[string, (sdk: Anthropic) => PromiseLike<unknown>, number]>([
    ['models.retrieve of an unknown model', (sdk) => sdk.models.retrieve('openai/gpt-nope'), 404],
    ['models.list with a limit out of range', (sdk) => sdk.models.list({ limit: 0 }), 400],
    ['beta.files.list (a path the gateway does not serve)', (sdk) => sdk.beta.files.list(), 404],
  ])('%s', async (_name, call, status) => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
    const error = await rejection(call(client));
    expect(error.status).toBe(status);
    expect(error.requestID).toMatch(ID);
    expect((error.error as { request_id?: string }).request_id).toBe(error.requestID);
  });

  it('models.list with an unknown key', async () => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: 'sb-not-a-key-000000000000000000000000', maxRetries: 0 });
    const error = await rejection(client.models.list());
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.requestID).toMatch(ID);
    expect((error.error as { request_id?: string }).request_id).toBe(error.requestID);
  });
});
