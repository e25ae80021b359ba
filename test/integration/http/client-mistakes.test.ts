/**
 * Client mistakes a fuzzer of the spec finds, over HTTP against the real gateway: each answers a 4xx in the
 * operation's error shape with a message naming what was wrong, never a 500, and stores nothing: an `offset`
 * past what the database can skip, text holding the NUL character (U+0000) or a lone surrogate, which
 * PostgreSQL cannot store, an OTLP header value that Node's HTTP client cannot send or a Content-Length header
 * that misstates each export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';

const NUL_COMPLAINT = 'must not contain the NUL character (U+0000)';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-mistakes-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const LISTS = ['/byok', '/keys', '/observability/destinations'];

describe('offset and limit of the paged lists', () => {
  const cases = LISTS.flatMap((path) => ['2147483648', '9223372036854775807', '99999999999999999999'].map((offset) => ({ path, offset })));

  it.each(cases)('GET $path?offset=$offset: 400 naming offset', async ({ path, offset }) => {
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?offset=${offset}`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path, method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.details).toEqual([{ path: '/query/offset', message: 'must be <= 2147483647' }]);
  });

  const infinite = [...LISTS, '/generations'].flatMap((path) =>
    [
      ...(path === '/generations' ? [] : ['offset=Infinity', 'offset=-Infinity', 'offset=1e400']),
      'limit=Infinity',
      'limit=1e400',
    ].map((query) => ({ path, query })),
  );

  it.each(infinite)('GET $path?$query: 400 naming the parameter', async ({ path, query }) => {
    const name = query.split('=')[0]!;
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?${query}`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path, method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    // Refused as written (src/http/strict-query.ts): the validator read them as numbers with Number().
    const problem = 'must be an integer written in decimal digits, such as 20 (no exponent, decimal point, hexadecimal, sign `+` or spaces)';
    expect(response.body).toEqual({ error: { code: 400, message: `Invalid request parameters: query parameter ${name}: ${problem}`, details: [{ path: `/query/${name}`, message: problem }] } });
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

  it('a lone surrogate, which is not Unicode and was stored altered to U+FFFD: 400 naming it, nothing stored', async () => {
    const before = await storedState();
    const complaint = 'must be well-formed Unicode: it holds a lone surrogate (a \\ud800 to \\udfff escape without its pair)';
    const response = await callApi(gateway.baseUrl, 'PATCH', `/byok/${credentialId}`, { key: gateway.management_key, rawBody: '{"allowed_user_ids":["ok","a\\udc00b"]}' });
    expect(response.body).toEqual({ error: { code: 400, message: `Invalid request parameters: allowed_user_ids[1] ${complaint}`, details: [{ path: '/body/allowed_user_ids/1', message: complaint }] } });
    expect(await storedState()).toEqual(before);
  });

  it('still stores the same text without the NUL', async () => {
    const response = await callApi(gateway.baseUrl, 'PATCH', `/byok/${credentialId}`, { key: gateway.management_key, body: { name: 'ab', allowed_models: ['openai/gpt-5'] } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ name: 'ab', allowed_models: ['openai/gpt-5'] });
  });
});

describe('the NUL character in the gateway fields of /messages', () => {
  const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

  async function post(body: Record<string, unknown>) {
    const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, generationId: response.headers.get('x-generation-id') ?? '', body: (await response.json()) as any };
  }

  it.each(['user', 'session_id'])('%s holding NUL: 400 naming it, nothing sent upstream', async (field) => {
    upstream.clear();
    const response = await post({ ...MESSAGE, [field]: 'end-user\u00001' });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path: '/messages', method: 'post', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', message: `Invalid request parameters: ${field} ${NUL_COMPLAINT}` });
    // It was served before, and its generation record, refused by PostgreSQL, silently dropped.
    expect(upstream.requests).toHaveLength(0);
  });

  it.each(['user', 'session_id'])('%s without NUL is served and recorded with it', async (field) => {
    const response = await post({ ...MESSAGE, [field]: 'end-user 1' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(await waitForGeneration(gateway, response.generationId)).toMatchObject({ status: 'success', [field]: 'end-user 1' });
  });
});

describe('OTLP destination header values', () => {
  const HEADER_COMPLAINT = 'must be text an HTTP header can carry: tabs, printable ASCII and Latin-1, no line breaks or other control characters';
  const OTLP = { kind: 'otlp', endpoint: 'https://collector.example/v1/traces' };

  async function destinations() {
    return (await callApi(gateway.baseUrl, 'GET', '/observability/destinations?limit=100', { key: gateway.management_key })).body;
  }

  it.each([
    ['a line break', 'Bearer a\r\nx-injected: 1'],
    ['a bare line feed', 'tenant\nb'],
    ['a control character', 'a\u0001b'],
    ['a character past Latin-1', 'price in €'],
    ['the NUL character', 'a\u0000b'],
  ])('%s: 400 naming the header on create and update, nothing stored', async (_case, value) => {
    const existing = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body: { name: 'headers kept', ...OTLP, headers: { 'x-tenant': 'acme' } } });
    expect(existing.status).toBe(201);
    const before = await destinations();
    const created = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body: { name: 'bad header', ...OTLP, headers: { 'X-Tenant': value } } });
    const patched = await callApi(gateway.baseUrl, 'PATCH', `/observability/destinations/${existing.body.data.id}`, { key: gateway.management_key, body: { sampling_rate: 0.5, headers: { 'X-Tenant': value } } });
    for (const [response, method, template] of [[created, 'post', '/observability/destinations'], [patched, 'patch', '/observability/destinations/{id}']] as const) {
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(checkResponse({ path: template, method, status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
      expect(response.body.error.message).toBe(`Invalid request parameters: headers.X-Tenant ${HEADER_COMPLAINT}`);
    }
    expect(await destinations()).toEqual(before);
  });

  it('Content-Length, which every export sets for itself: 400 naming it on create and update, nothing stored', async () => {
    const existing = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body: { name: 'length kept', ...OTLP } });
    const before = await destinations();
    const created = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body: { name: 'length', ...OTLP, headers: { 'Content-Length': '5' } } });
    const patched = await callApi(gateway.baseUrl, 'PATCH', `/observability/destinations/${existing.body.data.id}`, { key: gateway.management_key, body: { disabled: true, headers: { 'x-tenant': 'a', 'content-length': '5' } } });
    expect(created).toEqual({ status: 400, body: { error: { code: 400, message: 'Invalid request parameters: headers cannot set Content-Length: each export sets its own' } } });
    expect(patched).toEqual({ status: 400, body: { error: { code: 400, message: 'Invalid request parameters: headers cannot set content-length: each export sets its own' } } });
    expect(await destinations()).toEqual(before);
  });

  it('a tab, printable ASCII and Latin-1 are stored', async () => {
    const response = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body: { name: 'good header', ...OTLP, headers: { 'X-Tenant': 'Café\tNo 5 ~!' } } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data.header_names).toEqual(['x-tenant']);
  });
});

describe('GET /generations time filters', () => {
  it('takes from and to with their colons unencoded, as RFC 3986 allows in a query', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const served = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(served.status).toBe(200);
    const id = served.headers.get('x-generation-id') ?? '';
    await waitForGeneration(gateway, id);
    const to = new Date(Date.now() + 60_000).toISOString();
    const response = await callApi(gateway.baseUrl, 'GET', `/generations?from=${from}&to=${to}&limit=100`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.map((record: { id: string }) => record.id)).toContain(id);
  });
});

describe('GET /generations with a time zone offset whose + is not encoded', () => {
  it('says the + was read as a space, which the client never wrote', async () => {
    const response = await callApi(gateway.baseUrl, 'GET', '/generations?from=2025-01-01T00:00:00+01:00', { key: gateway.management_key });
    expect(response.status).toBe(400);
    expect(checkResponse({ path: '/generations', method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.message).toBe('Invalid request parameters: query parameter from: must match format "date-time" (a `+` in a query string reads as a space: write it `%2B`)');
    const encoded = await callApi(gateway.baseUrl, 'GET', '/generations?from=2025-01-01T00:00:00%2B01:00', { key: gateway.management_key });
    expect(encoded.status, JSON.stringify(encoded.body)).toBe(200);
  });
});

describe('GET /generations times a date cannot hold', () => {
  it.each([
    ['from', '0000-01-01T00:00:00Z', 'year 0000'],
    ['to', '0000-01-01T00:00:00Z', 'year 0000'],
    ['from', '2016-12-31T23:59:60Z', 'a leap second'],
    ['to', '9999-12-31T23:59:59-23:59', 'an offset carrying it past 9999'],
    ['from', '2025-01-01T00:00:00%2B99:99', 'an offset of 99 hours'],
    ['from', '2025-02-30T00:00:00Z', 'a day past the end of February'],
    ['to', '2023-02-29T12:00:00Z', 'February 29 of a common year'],
    ['to', '2025-01-01T24:00:00Z', 'hour 24'],
  ])('%s=%s (%s): 400 naming it', async (parameter, value) => {
    const response = await callApi(gateway.baseUrl, 'GET', `/generations?${parameter}=${value}`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path: '/generations', method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.message).toBe(`Invalid request parameters: ${parameter} must be an existing time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z`);
  });

  it('February 29 of a leap year is accepted', async () => {
    const response = await callApi(gateway.baseUrl, 'GET', '/generations?from=2024-02-29T00:00:00Z&to=2024-02-29T23:59:59Z', { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it('the range ends are accepted', async () => {
    const response = await callApi(gateway.baseUrl, 'GET', '/generations?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z', { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });
});

describe('bodies nested too deeply', () => {
  const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
  // As text: the client's own JSON.stringify cannot write such a body either.
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  /** `body` as JSON text with `"field": <raw>` added at its end. */
  const withRaw = (body: object, field: string, raw: string) => `${JSON.stringify(body).slice(0, -1)},"${field}":${raw}}`;
  const DEPTH_MESSAGE = 'Invalid request parameters: the body nests objects and arrays deeper than 512 levels';

  async function post(path: string, text: string, headers: Record<string, string>) {
    const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
    return { status: response.status, body: (await response.json()) as any };
  }

  it.each([
    ['/messages', 'a field passed through', (depth: number) => withRaw(MESSAGE, 'future_field', arrays(depth))],
    ['/messages', 'metadata', (depth: number) => withRaw(MESSAGE, 'metadata', `{"user_id":"u","extra":${nested(depth)}}`)],
    ['/messages', "a tool's input_schema", (depth: number) => withRaw(MESSAGE, 'tools', `[{"name":"t","input_schema":{"type":"object","properties":{"a":${nested(depth)}}}}]`)],
    ['/messages/count_tokens', 'a field passed through', (depth: number) => withRaw({ model: MESSAGE.model, messages: MESSAGE.messages }, 'future_field', arrays(depth))],
    [
      '/messages',
      "an earlier turn's tool_use input",
      (depth: number) =>
        `{"model":"${MESSAGE.model}","max_tokens":64,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"t","input":{"a":${arrays(depth)}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`,
    ],
  ])('POST %s with %s 10,000 levels deep: 400, not a 500; 500 levels are served', async (path, _where, build) => {
    const headers = { 'x-api-key': gateway.api_key };
    const deep = await post(path, build(10_000), headers);
    expect(deep.status, JSON.stringify(deep.body)).toBe(400);
    expect(checkResponse({ path, method: 'post', status: 400, contentType: 'application/json', body: deep.body }).errors).toEqual([]);
    expect(deep.body.error).toMatchObject({ type: 'invalid_request_error', message: DEPTH_MESSAGE });
    const shallow = await post(path, build(500), headers);
    expect(shallow.status, JSON.stringify(shallow.body)).toBe(200);
  });

  it('the same on a management operation, through the other body reader (a chunked body)', async () => {
    const body = new TextEncoder().encode(`{"kind":"inference","name":${arrays(10_000)}}`);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    const headers = { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' };
    const response = await fetch(`${gateway.baseUrl}/keys`, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 400, message: DEPTH_MESSAGE } });
  });
});
