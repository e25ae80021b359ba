/**
 * A JSON body is UTF-8 (RFC 8259; Anthropic's API documents only `content-type: application/json`). A
 * `charset` of `utf-8` (or `utf8`) or `us-ascii`, a subset of it, is read as UTF-8; any other charset is a 415
 * naming it, in the operation's error shape, before anything is sent upstream. Before, express.json decoded
 * whatever `utf-*` charset the label named (a UTF-16 body was served; a UTF-8 body labelled `utf-16` was a
 * "not valid JSON" 400 that said nothing of the label) and refused `us-ascii`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Héllo ✓' }] };

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-charsets-0001" }\n` });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function post(path: string, contentType: string, body: string | Uint8Array, key = gateway.api_key) {
  const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, body });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: JSON.parse(text) as { error: { message: string } }, text };
}

describe('a UTF-8-compatible charset', () => {
  it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8', 'us-ascii', 'US-ASCII', 'ascii'])('charset=%s: the Anthropic SDK gets its message, the text sent upstream intact', async (charset) => {
    const before = upstream.requests.length;
    const message = await client.messages.create(MESSAGE, { headers: { 'content-type': `application/json; charset=${charset}` } });
    expect(message.type).toBe('message');
    expect(upstream.requests).toHaveLength(before + 1);
    expect(JSON.stringify(upstream.requests.at(-1)?.body)).toContain('Héllo ✓');
  });
});

describe('any other charset is a 415 naming it', () => {
  it.each([
    ['utf-16', Buffer.from(JSON.stringify(MESSAGE))],
    ['utf-16le', Buffer.from(JSON.stringify(MESSAGE), 'utf16le')],
    ['UTF-32', Buffer.from(JSON.stringify(MESSAGE))],
    ['iso-8859-1', Buffer.from(JSON.stringify(MESSAGE), 'latin1')],
  ])('POST /messages with charset=%s', async (charset, bytes) => {
    const before = upstream.requests.length;
    const result = await post('/messages', `application/json; charset=${charset}`, bytes);
    expect(result.status, result.text).toBe(415);
    expect(checkResponse({ path: '/messages', method: 'post', status: 415, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    expect(result.body.error.message).toBe(`Unsupported Media Type: the body must be UTF-8, got charset ${charset.toLowerCase()}`);
    expect(upstream.requests).toHaveLength(before);
  });

  it('through the Anthropic SDK: an APIError of status 415', async () => {
    const error = await client.messages.create(MESSAGE, { headers: { 'content-type': 'application/json; charset=utf-16' } }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(415);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'invalid_request_error', message: 'Unsupported Media Type: the body must be UTF-8, got charset utf-16' } });
  });

  it('a header naming two charsets, one of them UTF-8, is refused for the other', async () => {
    const result = await post('/messages', 'application/json; charset=utf-8; charset=utf-16', JSON.stringify(MESSAGE));
    expect(result.status, result.text).toBe(415);
    expect(result.body.error.message).toBe('Unsupported Media Type: the body must be UTF-8, got charset utf-16');
  });

  it('a management operation answers it in its own shape', async () => {
    const result = await post('/keys', 'application/json; charset=utf-16', JSON.stringify({ kind: 'inference', name: 'x' }), gateway.management_key);
    expect(result.status, result.text).toBe(415);
    expect(checkResponse({ path: '/keys', method: 'post', status: 415, contentType: result.contentType, body: result.body }).errors).toEqual([]);
    expect(result.body).toEqual({ error: { code: 415, message: 'Unsupported Media Type: the body must be UTF-8, got charset utf-16' } });
  });

  it('a management body labelled us-ascii is read', async () => {
    const result = await post('/keys', 'application/json; charset=us-ascii', JSON.stringify({ kind: 'inference', name: 'ascii' }), gateway.management_key);
    expect(result.status, result.text).toBe(201);
  });

  it('a request without a body is not refused for its label', async () => {
    const response = await fetch(`${gateway.baseUrl}/keys`, { headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json; charset=utf-16' } });
    expect(response.status).toBe(200);
  });
});
