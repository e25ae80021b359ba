/**
 * Odd values of the headers `/messages` reads, over real HTTP. An empty `anthropic-version` was forwarded
 * empty (Anthropic answers that with a 400 the client cannot place), an `anthropic-beta` with empty items
 * (`a,,b`, a trailing comma, two headers a proxy repeated) was forwarded as is; now the version is left to
 * its default and the beta list carries only its flags. A key header sent twice reached authentication as
 * one value joined with `, ` and was a bare `Invalid API key`; now the 401 says the header holds more than
 * one value, unless another header presents a key.
 */
import { request } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-header-corners-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A raw request, so that a header can be sent twice as two lines (fetch would join them first). */
function send(headers: Record<string, string | string[]>): Promise<{ status: number; body: { error?: { type: string; message: string }; type?: string } }> {
  const body = JSON.stringify(MESSAGE);
  return new Promise((resolve, reject) => {
    const outgoing = request(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as never }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function lastUpstreamHeader(name: string): string | undefined {
  const headers = upstream.requests.at(-1)?.headers as Record<string, string | undefined> | undefined;
  return headers?.[name];
}

describe('anthropic-version', () => {
  it.each(['', '   '])('%j is forwarded as the default, as no header is', async (version) => {
    const { status } = await send({ authorization: `Bearer ${gateway.api_key}`, 'anthropic-version': version });
    expect(status).toBe(200);
    expect(lastUpstreamHeader('anthropic-version')).toBe('2023-06-01');
  });
});

describe('anthropic-beta', () => {
  it.each([
    ['a,,b', 'a,b'],
    [' , x ,', 'x'],
    ['a, b', 'a,b'],
    [',', undefined],
  ])('%j is forwarded as %j', async (beta, forwarded) => {
    const { status } = await send({ authorization: `Bearer ${gateway.api_key}`, 'anthropic-beta': beta });
    expect(status).toBe(200);
    expect(lastUpstreamHeader('anthropic-beta')).toBe(forwarded);
  });

  it('two anthropic-beta headers reach the upstream as one list', async () => {
    const { status } = await send({ authorization: `Bearer ${gateway.api_key}`, 'anthropic-beta': ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'] });
    expect(status).toBe(200);
    expect(lastUpstreamHeader('anthropic-beta')).toBe('interleaved-thinking-2025-05-14,context-1m-2025-08-07');
  });

  it('through the Anthropic SDK: betas with an empty item', async () => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
    const message = await client.messages.create(MESSAGE, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14,,' } });
    expect(message.type).toBe('message');
    expect(lastUpstreamHeader('anthropic-beta')).toBe('interleaved-thinking-2025-05-14');
  });
});

describe('a key header sent twice', () => {
  it.each([
    ['x-api-key', (key: string) => ({ 'x-api-key': [key, key] }), 'Invalid x-api-key header: it holds more than one value (was it sent twice?): send one key'],
    // Node keeps the first of two Authorization lines; fetch's Headers joins a repeated name into one line.
    ['Authorization', (key: string) => ({ authorization: `Bearer ${key}, Bearer ${key}` }), 'Invalid Authorization header: it holds more than one value (was it sent twice?): send one key'],
  ])('%s: a 401 saying so, nothing sent upstream', async (_name, headers, message) => {
    const before = upstream.requests.length;
    const { status, body } = await send(headers(gateway.api_key));
    expect(status).toBe(401);
    expect(body.error).toEqual(expect.objectContaining({ type: 'authentication_error', message }));
    expect(upstream.requests).toHaveLength(before);
  });

  it('a repeated x-api-key next to a Bearer gateway key: the Bearer key serves', async () => {
    const { status } = await send({ authorization: `Bearer ${gateway.api_key}`, 'x-api-key': ['sk-ant-one', 'sk-ant-two'] });
    expect(status).toBe(200);
  });
});
