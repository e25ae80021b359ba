/**
 * HEAD and OPTIONS on every path of the spec, against the real gateway: HEAD wherever GET is answers what GET
 * answers (status, content type and length, authentication) with no body, and is a 405 with `Allow` elsewhere;
 * OPTIONS answers 204 with `Allow` (the spec's methods, HEAD where GET is, OPTIONS; in one fixed order) on
 * every documented path, without a key and without CORS headers; an undocumented path stays a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { documentedMethods } from '#test/helpers/spec-validator.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-heads-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function send(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.baseUrl}${path}`, { method, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

const PATHS = [...documentedMethods()].map(([template, methods]) => ({
  template,
  path: template.replace(/\{[^}]+\}/g, 'x'),
  methods,
  allow: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((method) => methods.includes(method) || method === 'OPTIONS' || (method === 'HEAD' && methods.includes('GET'))),
}));
const WITH_GET = PATHS.filter((entry) => entry.methods.includes('GET'));
const WITHOUT_GET = PATHS.filter((entry) => !entry.methods.includes('GET'));
const keyFor = (template: string) => (template.startsWith('/messages') ? gateway.api_key : gateway.management_key);

describe('OPTIONS', () => {
  it.each(PATHS)('$template: 204 with Allow $allow, no key needed, no CORS', async ({ template, path, allow }) => {
    const result = await send('OPTIONS', path, { origin: 'https://app.example', 'access-control-request-method': 'POST' });
    expect(result.status, result.text).toBe(204);
    expect(result.text).toBe('');
    expect(result.headers.get('allow')).toBe(allow.join(', '));
    expect(result.headers.get('access-control-allow-origin')).toBeNull();
    if (template.startsWith('/messages')) expect(result.headers.get('request-id')).toMatch(/^gen_/);
  });

  it('leaves a path the spec does not have a 404', async () => {
    const result = await send('OPTIONS', '/nowhere');
    expect(result.status).toBe(404);
    expect(result.headers.get('allow')).toBeNull();
  });
});

describe('HEAD where GET is', () => {
  it('covers every path with GET', () => {
    expect(WITH_GET.map((entry) => entry.template)).toEqual(expect.arrayContaining(['/health', '/models', '/keys', '/byok', '/byok/{id}', '/generations']));
  });

  it.each(WITH_GET)('$template: what GET answers, without the body', async ({ template, path }) => {
    const headers = { authorization: `Bearer ${keyFor(template)}` };
    const get = await send('GET', path, headers);
    const head = await send('HEAD', path, headers);
    expect(head.status).toBe(get.status);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    // Bodies that do not change between two calls have the same length announced.
    if (['/health', '/models', '/byok/{id}'].includes(template)) expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
  });

  it.each(WITH_GET.filter((entry) => entry.template !== '/health'))('$template without a key: the 401 GET gets, without the body', async ({ path }) => {
    const head = await send('HEAD', path);
    expect(head.status).toBe(401);
    expect(head.text).toBe('');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
  });
});

describe('HEAD where GET is not', () => {
  it.each(WITHOUT_GET)('$template: 405 with Allow $allow, no body', async ({ template, path, allow }) => {
    const result = await send('HEAD', path, { authorization: `Bearer ${keyFor(template)}` });
    expect(result.status).toBe(405);
    expect(result.text).toBe('');
    expect(result.headers.get('allow')).toBe(allow.join(', '));
  });
});
