/**
 * HTTP details a spec-driven fuzzer checks, against the real gateway: a method a path does not have is a 405
 * whose `Allow` lists the methods the spec gives that path (with HEAD where GET is, and OPTIONS); `?beta=` with an empty value is accepted like
 * `?beta=true`; a body sent as anything but JSON is a 415 naming the type received (or saying none was sent);
 * the error bodies keep their two shapes; errors in Anthropic's shape carry `request-id`; a body that does not decode as
 * its `Content-Encoding` is a 400, not a 500.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { checkComponentSchema, checkResponse, documentedMethods } from '#test/helpers/spec-validator.ts';

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const COUNT = { model: MESSAGE.model, messages: MESSAGE.messages };
const CANDIDATE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-edges-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function send(method: string, path: string, options: { headers?: Record<string, string>; body?: string | Uint8Array } = {}) {
  const response = await fetch(`${gateway.baseUrl}${path}`, { method, headers: options.headers, ...(options.body !== undefined ? { body: options.body } : {}) });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, headers: response.headers, contentType, text, body: (contentType.includes('json') && text ? JSON.parse(text) : text) as unknown };
}

const notDocumented = [...documentedMethods()].flatMap(([template, methods]) =>
  CANDIDATE_METHODS.filter((method) => !methods.includes(method)).map((method) => ({ template, method, allowed: methods })),
);

describe('405 Method Not Allowed', () => {
  it('covers every path of the spec', () => {
    expect(new Set(notDocumented.map((entry) => entry.template))).toEqual(new Set(documentedMethods().keys()));
  });

  it.each(notDocumented)('$method $template: 405 with Allow from the spec', async ({ template, method, allowed }) => {
    const path = template.replace(/\{[^}]+\}/g, 'x');
    const result = await send(method, path, { headers: { authorization: `Bearer ${gateway.api_key}` } });
    expect(result.status, result.text).toBe(405);
    const allow = (result.headers.get('allow') ?? '').split(/\s*,\s*/).filter(Boolean);
    // The spec's methods, HEAD wherever GET is, and OPTIONS (head-and-options.test.ts).
    expect(new Set(allow)).toEqual(new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS']));
    // The operations Anthropic clients call (/messages, and /models for the SDKs' models.list and retrieve)
    // answer Anthropic's error body; the management operations answer the gateway's own.
    const anthropicShape = template.startsWith('/messages') || template.startsWith('/models');
    const check = checkComponentSchema(anthropicShape ? 'MessagesErrorBody' : 'ErrorBody', result.body);
    expect(check.errors, result.text).toEqual([]);
    const error = (result.body as { error: { code: number; message: string; type?: string } }).error;
    expect(error.code).toBe(405);
    expect(error.message).toBe(`Method not allowed: ${method}; this path accepts ${allow.join(', ')}`);
    if (anthropicShape) {
      expect(error.type).toBe('invalid_request_error');
      // Every error in that shape names its request; only /messages makes a generation (X-Generation-Id).
      expect(result.headers.get('request-id')).toBe((result.body as { request_id?: string }).request_id);
      expect(result.headers.get('x-generation-id')).toBe(template.startsWith('/messages') ? result.headers.get('request-id') : null);
    }
  });
});

describe('?beta= on the Anthropic surface', () => {
  it.each([
    ['/messages', '?beta=', MESSAGE],
    ['/messages', '?beta', MESSAGE],
    ['/messages', '?beta=true', MESSAGE],
    ['/messages/count_tokens', '?beta=', COUNT],
  ])('%s%s is accepted', async (path, query, body) => {
    const result = await send('POST', `${path}${query}`, { headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(result.status, result.text).toBe(200);
    expect(checkResponse({ path, method: 'post', status: 200, contentType: result.contentType, body: result.body }).errors).toEqual([]);
  });

  it('still rejects a query parameter the spec does not declare', async () => {
    const result = await send('POST', '/messages?betta=', { headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json' }, body: JSON.stringify(MESSAGE) });
    expect(result.status).toBe(400);
  });
});

describe('415 Unsupported Media Type', () => {
  const bodies = [
    { template: '/messages', method: 'POST', path: '/messages', key: 'inference', body: MESSAGE },
    { template: '/messages/count_tokens', method: 'POST', path: '/messages/count_tokens', key: 'inference', body: COUNT },
    { template: '/keys', method: 'POST', path: '/keys', key: 'management', body: { kind: 'inference', name: 'x' } },
    { template: '/byok', method: 'POST', path: '/byok', key: 'management', body: { provider: 'openai', key: 'sk-x' } },
  ] as const;
  const cases = bodies.flatMap((entry) => [
    { ...entry, contentType: 'text/plain', expected: 'got text/plain' },
    { ...entry, contentType: 'application/x-www-form-urlencoded; charset=utf-8', expected: 'got application/x-www-form-urlencoded' },
    { ...entry, contentType: undefined, expected: 'but the request has none' },
  ]);

  it.each(cases)('$method $path sent as $contentType: 415 naming it', async ({ template, method, path, key, body, contentType, expected }) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key === 'inference' ? gateway.api_key : gateway.management_key}` };
    if (contentType) headers['content-type'] = contentType;
    // A Uint8Array body makes fetch send no Content-Type of its own.
    const result = await send(method, path, { headers, body: new TextEncoder().encode(JSON.stringify(body)) });
    expect(result.status, result.text).toBe(415);
    expect(checkResponse({ path: template, method, status: 415, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    const error = (result.body as { error: { code: number; message: string } }).error;
    expect(error.code).toBe(415);
    expect(error.message).toBe(`Unsupported Media Type: Content-Type must be application/json, ${expected}`);
  });

  it('does not echo a Content-Type that is not a media type', async () => {
    const headers = { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'sk-ant-api03-pasted-by-mistake <script>' };
    const result = await send('POST', '/messages', { headers, body: JSON.stringify(MESSAGE) });
    expect(result.status).toBe(415);
    expect(result.text).not.toContain('sk-ant-api03');
    expect((result.body as { error: { message: string } }).error.message).toBe('Unsupported Media Type: Content-Type must be application/json, got a value that is not a media type');
  });

  it.each([
    ['a charset other than UTF-8', { 'content-type': 'application/json; charset=latin1' }, 'Unsupported Media Type: the body must be UTF-8, got charset latin1'],
    ['an unknown Content-Encoding', { 'content-type': 'application/json', 'content-encoding': 'x-squash' }, 'Unsupported Media Type: Content-Encoding x-squash is not supported'],
  ])('answers %s with a 415, not a 500', async (_case, extra, message) => {
    const result = await send('POST', '/messages', { headers: { authorization: `Bearer ${gateway.api_key}`, ...extra }, body: JSON.stringify(MESSAGE) });
    expect(result.status, result.text).toBe(415);
    expect(checkResponse({ path: '/messages', method: 'post', status: 415, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    expect((result.body as { error: { message: string } }).error.message).toBe(message);
  });

  it('accepts JSON with parameters, in any case', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON; charset=UTF-8; profile=a', 'application/json;x=1']) {
      const result = await send('POST', '/messages', { headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': contentType }, body: JSON.stringify(MESSAGE) });
      expect(result.status, `${contentType}: ${result.text}`).toBe(200);
    }
  });
});

describe('Content-Encoding', () => {
  const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
  const encodings = Object.keys(encoders) as (keyof typeof encoders)[];

  it.each(encodings)('a body compressed with %s is read', async (encoding) => {
    const headers = { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', 'content-encoding': encoding };
    const result = await send('POST', '/messages', { headers, body: new Uint8Array(encoders[encoding](JSON.stringify(MESSAGE))) });
    expect(result.status, result.text).toBe(200);
  });

  const corrupt = encodings.flatMap((encoding) => [
    { encoding, what: 'plain JSON', body: new TextEncoder().encode(JSON.stringify({ kind: 'inference', name: 'never stored' })) },
    { encoding, what: 'a truncated stream', body: new Uint8Array(encoders[encoding](JSON.stringify({ kind: 'inference', name: 'never stored' })).subarray(0, 12)) },
  ]);

  it.each(corrupt)('POST /keys labelled $encoding but $what: 400, nothing stored', async ({ encoding, body }) => {
    const keysBefore = await send('GET', '/keys?limit=100', { headers: { authorization: `Bearer ${gateway.management_key}` } });
    const headers = { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json', 'content-encoding': encoding };
    const result = await send('POST', '/keys', { headers, body });
    expect(result.status, result.text).toBe(400);
    expect(checkResponse({ path: '/keys', method: 'post', status: 400, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    expect(result.body).toEqual({ error: { code: 400, message: 'Invalid request parameters: the body is not valid for its Content-Encoding' } });
    const keysAfter = await send('GET', '/keys?limit=100', { headers: { authorization: `Bearer ${gateway.management_key}` } });
    expect((keysAfter.body as { total: number }).total).toBe((keysBefore.body as { total: number }).total);
  });

  it.each(encodings)('POST /messages labelled %s but plain JSON: 400 in the messages shape', async (encoding) => {
    const headers = { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', 'content-encoding': encoding };
    const result = await send('POST', '/messages', { headers, body: new TextEncoder().encode(JSON.stringify(MESSAGE)) });
    expect(result.status, result.text).toBe(400);
    expect(checkResponse({ path: '/messages', method: 'post', status: 400, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    const error = (result.body as { error: { type: string; message: string } }).error;
    expect(error).toMatchObject({ type: 'invalid_request_error', message: 'Invalid request parameters: the body is not valid for its Content-Encoding' });
  });
});
