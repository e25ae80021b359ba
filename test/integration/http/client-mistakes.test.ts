/**
 * Client mistakes a fuzzer of the spec finds, over HTTP against the real gateway: each answers a 4xx in the
 * operation's error shape with a message naming what was wrong, never a 500, and stores nothing: an `offset`
 * past what the database can skip, text holding the NUL character (U+0000), which PostgreSQL cannot store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';

const NUL_COMPLAINT = 'must not contain the NUL character (U+0000)';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const LISTS = ['/byok', '/keys', '/observability/destinations'];

describe('offset of the paged lists', () => {
  const cases = LISTS.flatMap((path) => ['2147483648', '9223372036854775807', '99999999999999999999'].map((offset) => ({ path, offset })));

  it.each(cases)('GET $path?offset=$offset: 400 naming offset', async ({ path, offset }) => {
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?offset=${offset}`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path, method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.details).toEqual([{ path: '/query/offset', message: 'must be <= 2147483647' }]);
  });

  it.each(LISTS)('GET %s?offset=2147483647, the largest: an empty page', async (path) => {
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?offset=2147483647`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ data: [], offset: 2147483647 });
  });
});

describe('the NUL character in management text', () => {
  let credentialId: string;
  let destinationId: string;

  beforeAll(async () => {
    const credential = await callApi(gateway.baseUrl, 'POST', '/byok', { key: gateway.management_key, body: { provider: 'anthropic', key: 'sk-ant-nul-0001', name: 'kept' } });
    credentialId = credential.body.data.id;
    const destination = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', {
      key: gateway.management_key,
      body: { name: 'kept', kind: 'otlp', endpoint: 'https://collector.example/v1/traces' },
    });
    destinationId = destination.body.data.id;
  });

  /** Everything a write below could have changed, as the API reads it back. */
  async function storedState() {
    const read = async (path: string) => (await callApi(gateway.baseUrl, 'GET', path, { key: gateway.management_key })).body;
    return { byok: await read('/byok?limit=100'), keys: await read('/keys?limit=100'), destinations: await read('/observability/destinations?limit=100') };
  }

  const WRITES = [
    { method: 'POST', template: '/byok', path: () => '/byok', body: { provider: 'openai', key: 'sk-nul', name: 'a\u0000b' }, pointer: '/body/name', name: 'name' },
    { method: 'PATCH', template: '/byok/{id}', path: () => `/byok/${credentialId}`, body: { name: 'a\u0000b' }, pointer: '/body/name', name: 'name' },
    { method: 'PATCH', template: '/byok/{id}', path: () => `/byok/${credentialId}`, body: { disabled: true, allowed_models: ['openai/gpt-5', 'a\u0000'] }, pointer: '/body/allowed_models/1', name: 'allowed_models[1]' },
    { method: 'PATCH', template: '/byok/{id}', path: () => `/byok/${credentialId}`, body: { allowed_user_ids: ['\u0000'] }, pointer: '/body/allowed_user_ids/0', name: 'allowed_user_ids[0]' },
    { method: 'POST', template: '/keys', path: () => '/keys', body: { kind: 'inference', name: 'a\u0000' }, pointer: '/body/name', name: 'name' },
    { method: 'PATCH', template: '/keys/{hash}', path: () => `/keys/${gateway.api_key_hash}`, body: { name: '\u0000', requests_per_minute: 5 }, pointer: '/body/name', name: 'name' },
    { method: 'POST', template: '/observability/destinations', path: () => '/observability/destinations', body: { name: 'n\u0000', kind: 'otlp', endpoint: 'https://collector.example/v1/traces' }, pointer: '/body/name', name: 'name' },
    { method: 'PATCH', template: '/observability/destinations/{id}', path: () => `/observability/destinations/${destinationId}`, body: { name: 'n\u0000' }, pointer: '/body/name', name: 'name' },
    { method: 'PATCH', template: '/observability/destinations/{id}', path: () => `/observability/destinations/${destinationId}`, body: { sampling_rate: 0.5, headers: { 'x-tenant': 'a\u0000' } }, pointer: '/body/headers/x-tenant', name: 'headers.x-tenant' },
  ];

  it.each(WRITES)('$method $template with NUL in $name: 400 naming it, nothing stored', async (write) => {
    const before = await storedState();
    const response = await callApi(gateway.baseUrl, write.method, write.path(), { key: gateway.management_key, body: write.body });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path: write.template, method: write.method.toLowerCase(), status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body).toEqual({ error: { code: 400, message: `Invalid request parameters: ${write.name} ${NUL_COMPLAINT}`, details: [{ path: write.pointer, message: NUL_COMPLAINT }] } });
    expect(await storedState()).toEqual(before);
  });

  it.each(['model', 'provider', 'user', 'session_id'])('GET /generations?%s=a%00b: 400 naming it', async (parameter) => {
    const response = await callApi(gateway.baseUrl, 'GET', `/generations?${parameter}=a%00b`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path: '/generations', method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.message).toBe(`Invalid request parameters: query parameter ${parameter} ${NUL_COMPLAINT}`);
  });

  it('still stores the same text without the NUL', async () => {
    const response = await callApi(gateway.baseUrl, 'PATCH', `/byok/${credentialId}`, { key: gateway.management_key, body: { name: 'ab', allowed_models: ['openai/gpt-5'] } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ name: 'ab', allowed_models: ['openai/gpt-5'] });
  });
});
