/**
 * Where a client may put its gateway key, over HTTP against the real gateway: `Authorization: Bearer` or
 * `x-api-key` on `/messages` and `/messages/count_tokens` (and on `/models`: models-spec-fidelity.test.ts),
 * Bearer only on management operations. With both headers the one holding a live gateway key is used, so a
 * provider key a shell still exports next to the gateway key locks nobody out; and such a provider key is
 * never logged, echoed or forwarded upstream.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const SHARED_KEY = 'sk-ant-shared-key-headers-0001';
// A real-looking Anthropic key (the logger's redaction would catch it) and an opaque one (it would not): the
// opaque key proves the gateway never writes the value in the first place.
const PROVIDER_KEY = 'sk-ant-api03-Qm9vYmFyYmF6cXV4cXV1eA-kH8s2pLr5vXn0wYzB1c2F';
const OPAQUE_KEY = 'opaque-provider-credential-7f3a9c2e41d85b60';
const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const COUNT = { model: MESSAGE.model, messages: MESSAGE.messages };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "${SHARED_KEY}" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clear());

async function post(path: string, headers: Record<string, string>, body: unknown = MESSAGE) {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as { error?: { type?: string; message?: string } };
  return { status: response.status, text, body: parsed, headers: response.headers };
}

type Keys = 'inference' | 'management' | 'provider' | 'opaque' | 'unknown-gateway';
function key(name: Keys): string {
  switch (name) {
    case 'inference':
      return gateway.api_key;
    case 'management':
      return gateway.management_key;
    case 'provider':
      return PROVIDER_KEY;
    case 'opaque':
      return OPAQUE_KEY;
    case 'unknown-gateway':
      return 'sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    default: {
      const unreachable: never = name;
      throw new Error(`unknown key ${String(unreachable)}`);
    }
  }
}

function headersFor(bearer: Keys | undefined, apiKey: Keys | undefined): Record<string, string> {
  return { ...(bearer ? { authorization: `Bearer ${key(bearer)}` } : {}), ...(apiKey ? { 'x-api-key': key(apiKey) } : {}) };
}

// A management key is told what it attempted: creating a message, or counting its tokens.
const MANAGEMENT_REFUSED = {
  '/messages': 'Management keys cannot create messages; use an inference key',
  '/messages/count_tokens': 'Management keys cannot count tokens; use an inference key',
} as const;

describe('POST /messages and /messages/count_tokens: which key is used', () => {
  it.each<{ name: string; bearer?: Keys; apiKey?: Keys; status: number; message?: string | typeof MANAGEMENT_REFUSED }>([
    { name: 'an inference key in x-api-key', apiKey: 'inference', status: 200 },
    { name: 'an inference key as Bearer', bearer: 'inference', status: 200 },
    { name: 'a valid Bearer key next to a provider key in x-api-key', bearer: 'inference', apiKey: 'provider', status: 200 },
    { name: 'a provider key as Bearer next to a valid x-api-key', bearer: 'provider', apiKey: 'inference', status: 200 },
    { name: 'an opaque provider key as Bearer next to a valid x-api-key', bearer: 'opaque', apiKey: 'inference', status: 200 },
    { name: 'a valid x-api-key next to an unknown gateway key as Bearer', bearer: 'unknown-gateway', apiKey: 'inference', status: 200 },
    { name: 'provider keys in both headers', bearer: 'provider', apiKey: 'opaque', status: 401, message: 'Invalid API key' },
    { name: 'an unknown key in x-api-key only', apiKey: 'unknown-gateway', status: 401, message: 'Invalid API key' },
    { name: 'neither header', status: 401, message: 'Missing Authentication header' },
    { name: 'a management key in x-api-key', apiKey: 'management', status: 403, message: MANAGEMENT_REFUSED },
    { name: 'a management key as Bearer next to a provider key in x-api-key', bearer: 'management', apiKey: 'provider', status: 403, message: MANAGEMENT_REFUSED },
    // Two live gateway keys: Authorization's is used and its kind decides; the other is never tried instead.
    { name: 'an inference key as Bearer next to a management key in x-api-key', bearer: 'inference', apiKey: 'management', status: 200 },
    { name: 'a management key as Bearer next to an inference key in x-api-key', bearer: 'management', apiKey: 'inference', status: 403, message: MANAGEMENT_REFUSED },
  ])('$name: $status', async ({ bearer, apiKey, status, message }) => {
    for (const [path, body] of [['/messages', MESSAGE], ['/messages/count_tokens', COUNT]] as const) {
      const result = await post(path, headersFor(bearer, apiKey), body);
      expect(result.status, `${path}: ${result.text}`).toBe(status);
      const told = typeof message === 'object' ? message[path] : message;
      if (told) expect(result.body.error?.message).toBe(told);
      if (status === 401) expect(result.body.error?.type).toBe('authentication_error');
      if (status === 403) expect(result.body.error?.type).toBe('permission_error');
    }
  });

  it('names a non-Bearer Authorization scheme when no key is sent elsewhere, and ignores it when one is', async () => {
    const alone = await post('/messages', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` });
    expect(alone.status).toBe(401);
    expect(alone.body.error?.message).toBe('Invalid Authorization header: expected `Bearer <key>`');
    const withApiKey = await post('/messages', { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': gateway.api_key });
    expect(withApiKey.status).toBe(200);
  });
});

describe('management operations read only Authorization', () => {
  it('ignores a management key in x-api-key: without Authorization it is a 401', async () => {
    const response = await fetch(`${gateway.baseUrl}/keys`, { headers: { 'x-api-key': gateway.management_key } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: 401, message: 'Missing Authentication header' } });
  });

  it('does not fall back to x-api-key when the Bearer key is unknown', async () => {
    const response = await fetch(`${gateway.baseUrl}/keys`, { headers: { authorization: `Bearer ${key('unknown-gateway')}`, 'x-api-key': gateway.management_key } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: 401, message: 'Invalid API key' } });
  });

  it('still works with the management key as Bearer', async () => {
    const response = await fetch(`${gateway.baseUrl}/keys`, { headers: { authorization: `Bearer ${gateway.management_key}`, 'x-api-key': OPAQUE_KEY } });
    expect(response.status).toBe(200);
  });
});

describe('a provider key sent next to the gateway key', () => {
  it.each([
    ['x-api-key', { authorization: `Bearer {gateway}`, 'x-api-key': '{provider}' }],
    ['Authorization', { authorization: 'Bearer {provider}', 'x-api-key': '{gateway}' }],
  ])('in %s is never forwarded, echoed or logged', async (_where, template) => {
    for (const provider of [PROVIDER_KEY, OPAQUE_KEY]) {
      const headers = Object.fromEntries(Object.entries(template).map(([name, value]) => [name, value.replace('{gateway}', gateway.api_key).replace('{provider}', provider)]));
      const texts: string[] = [];
      for (const stream of [false, true]) {
        const result = await post('/messages', headers, { ...MESSAGE, stream });
        expect(result.status, result.text).toBe(200);
        texts.push(result.text, JSON.stringify([...result.headers]));
      }
      const counted = await post('/messages/count_tokens', headers, COUNT);
      expect(counted.status).toBe(200);
      texts.push(counted.text);

      expect(upstream.requests.length).toBeGreaterThanOrEqual(3);
      for (const sent of upstream.requests) {
        expect(sent.headers['x-api-key']).toBe(SHARED_KEY);
        expect(sent.headers.authorization).toBeUndefined();
        const everything = JSON.stringify(sent.headers) + sent.rawBody;
        expect(everything).not.toContain(provider);
        expect(everything).not.toContain(gateway.api_key);
      }
      for (const text of texts) expect(text).not.toContain(provider);
      upstream.clear();
    }
  });

  it('is not logged nor echoed when the request is refused', async () => {
    const refused = [
      await post('/messages', { authorization: `Bearer ${OPAQUE_KEY}`, 'x-api-key': PROVIDER_KEY }),
      await post('/messages', { 'x-api-key': OPAQUE_KEY }),
      await post('/messages', { authorization: OPAQUE_KEY }),
      await post('/messages', { 'x-api-key': OPAQUE_KEY, 'content-type': 'text/plain' }),
    ];
    for (const result of refused) {
      expect(result.status).toBe(401);
      expect(result.text).not.toContain(OPAQUE_KEY);
      expect(result.text).not.toContain(PROVIDER_KEY);
    }
    expect(upstream.requests).toEqual([]);
    const leaked = gateway.logs.filter((line) => line.includes(OPAQUE_KEY) || line.includes(PROVIDER_KEY) || line.includes(gateway.api_key));
    expect(leaked).toEqual([]);
  });
});
