/**
 * The output-limit clamp on the Anthropic passthrough, over HTTP with the built-in catalog and a fake Anthropic
 * that refuses, as Anthropic does, a `max_tokens` above its model's limit:
 * - the answer names the value sent in `X-Switchboard-Max-Tokens` when the gateway lowered it (JSON and
 *   stream), and carries no such header when the value went as asked;
 * - a beta that may raise the output limit (`output-300k-2026-03-24`, `output-128k-2025-02-19`, or one the
 *   gateway does not know) leaves the value as the client wrote it, so what the upstream takes is served and
 *   what it does not is its own 400, never a silent cut; the betas known to leave the limit alone do not;
 * - each attempt of a fallback plan is held to its own endpoint's limit from the value the client asked;
 * - count_tokens, which sends no `max_tokens`, is unaffected.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { errorMessage, messageBody, postMessage, resetFakes, streamMessage } from './routing-support.ts';

const HEADER = 'x-switchboard-max-tokens';
// Anthropic's limits of the catalog's models (each model's overview page), held by the fake. Opus 4.6 is left
// out: the fake takes any value for it, as Anthropic takes more than 128K with the batch output beta. (Opus 4.1,
// 32K, is retired on Anthropic's API: the gateway no longer sends it there.)
const OUTPUT_LIMITS = { 'claude-sonnet-4-5': 64_000, 'claude-opus-4-5': 64_000 };

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ outputLimits: OUTPUT_LIMITS });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  ollama: { enabled: false }\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-output-audit-0001" }\n` });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => resetFakes(upstream));

function sentMaxTokens(index = -1): unknown {
  return (upstream.requests.at(index)?.body as { max_tokens?: unknown } | undefined)?.max_tokens;
}

const TEXT = () => anthropicStep({ text: 'Done.', usage: { input: 10, output: 2 } });

describe('X-Switchboard-Max-Tokens', () => {
  it('names the value sent when the gateway lowered it, on a JSON answer', async () => {
    upstream.enqueue(TEXT());
    const call = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 128_000 }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(sentMaxTokens()).toBe(64_000);
    expect(call.headers.get(HEADER)).toBe('64000');
  });

  it('names it on a stream too', async () => {
    upstream.enqueue(TEXT());
    const call = await streamMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 100_000 }));

    expect(call.status).toBe(200);
    expect(call.events.at(-1)?.event).toBe('message_stop');
    expect(sentMaxTokens()).toBe(64_000);
    expect(call.headers.get(HEADER)).toBe('64000');
  });

  it('is absent when the value went as asked', async () => {
    upstream.enqueue(TEXT());
    const call = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 64_000 }));

    expect(call.status).toBe(200);
    expect(sentMaxTokens()).toBe(64_000);
    expect(call.headers.get(HEADER)).toBeNull();
  });
});

describe('betas that may raise the output limit', () => {
  it('an output beta sends the value as asked, which the upstream serves', async () => {
    upstream.enqueue(TEXT());
    const call = await postMessage(gateway, messageBody('anthropic/claude-opus-4.6', { max_tokens: 300_000 }), { 'anthropic-beta': 'output-300k-2026-03-24' });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(sentMaxTokens()).toBe(300_000);
    expect(String(upstream.lastRequest().headers['anthropic-beta'])).toBe('output-300k-2026-03-24');
    expect(call.headers.get(HEADER)).toBeNull();
  });

  it('a beta the gateway does not know, among known ones, does too: above what the upstream takes, its 400 is the answer', async () => {
    const call = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 100_000 }), {
      'anthropic-beta': 'interleaved-thinking-2025-05-14, output-256k-2027-01-01',
    });

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toContain('max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5');
    expect(upstream.requests).toHaveLength(1);
    expect(sentMaxTokens()).toBe(100_000);
  });

  it('keeps a thinking budget as asked with the value', async () => {
    upstream.enqueue(TEXT());
    const thinking = { type: 'enabled', budget_tokens: 150_000 };
    const call = await postMessage(gateway, messageBody('anthropic/claude-opus-4.6', { max_tokens: 200_000, thinking }), { 'anthropic-beta': 'output-300k-2026-03-24' });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(upstream.lastRequest().body).toMatchObject({ max_tokens: 200_000, thinking });
  });

  it('betas known to leave the limit alone (Claude Code\'s, the 1M context) still have the value lowered', async () => {
    upstream.enqueue(TEXT());
    const betas = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,context-1m-2025-08-07,effort-2025-11-24';
    const call = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 128_000 }), { 'anthropic-beta': betas });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(sentMaxTokens()).toBe(64_000);
    expect(call.headers.get(HEADER)).toBe('64000');
  });
});

describe('fallbacks hold each attempt to its own limit, from the value asked', () => {
  it('a fallback to a model with a higher limit is sent the client\'s value, not the lowered one', async () => {
    upstream.enqueue(reply.error(529));
    upstream.enqueue(TEXT());
    const call = await postMessage(gateway, messageBody('anthropic/claude-opus-4.5', { max_tokens: 100_000, fallbacks: [{ model: 'anthropic/claude-opus-4.6' }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('anthropic/claude-opus-4.6');
    expect(upstream.requests.map((request) => (request.body as { model?: unknown }).model)).toEqual(['claude-opus-4-5', 'claude-opus-4-6']);
    expect([sentMaxTokens(0), sentMaxTokens(1)]).toEqual([64_000, 100_000]);
    expect(call.headers.get(HEADER)).toBeNull();
  });

  it('a fallback to a model with a lower limit is lowered to its own, and the header names it', async () => {
    upstream.enqueue(reply.error(529));
    upstream.enqueue(TEXT());
    const call = await postMessage(gateway, messageBody('anthropic/claude-opus-4.6', { max_tokens: 100_000, fallbacks: [{ model: 'anthropic/claude-sonnet-4.5' }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('anthropic/claude-sonnet-4.5');
    expect([sentMaxTokens(0), sentMaxTokens(1)]).toEqual([100_000, 64_000]);
    expect(call.headers.get(HEADER)).toBe('64000');
  });

  it('a stream that fails over names the limit of the attempt that started it', async () => {
    upstream.enqueue(reply.error(529));
    upstream.enqueue(TEXT());
    const call = await streamMessage(gateway, messageBody('anthropic/claude-opus-4.6', { max_tokens: 200_000, fallbacks: [{ model: 'anthropic/claude-sonnet-4.5' }] }));

    expect(call.status).toBe(200);
    expect([sentMaxTokens(0), sentMaxTokens(1)]).toEqual([128_000, 64_000]);
    expect(call.headers.get(HEADER)).toBe('64000');
  });
});

describe('count_tokens', () => {
  it('is unaffected: max_tokens (not Anthropic\'s to count) is not sent, the beta goes through, no header', async () => {
    const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json', 'anthropic-beta': 'output-128k-2025-02-19' },
      body: JSON.stringify(messageBody('anthropic/claude-sonnet-4.5', { max_tokens: 128_000 })),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 12 });
    expect(upstream.lastRequest().body).toEqual({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(String(upstream.lastRequest().headers['anthropic-beta'])).toBe('output-128k-2025-02-19');
    expect(response.headers.get(HEADER)).toBeNull();
  });
});
