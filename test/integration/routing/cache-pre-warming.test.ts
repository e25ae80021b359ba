/**
 * `max_tokens: 0`, Anthropic's prompt-cache pre-warming (the prompt is read and cached, nothing generated), as
 * the Anthropic SDK sends it and as Claude Code sends it for its auto-mode review: it reaches an
 * Anthropic-format upstream byte for byte, is a 400 naming it from an OpenAI endpoint (which is never called),
 * and in a plan with both the OpenAI endpoint is skipped for the Anthropic one. A count of such a request is
 * a count like any other.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { errorMessage, metadataOf, postMessage, WITH_METADATA } from './routing-support.ts';
import { useMixedVendorGateway } from './mixed-vendor-gateway.ts';

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
useMixedVendorGateway((started) => ({ openai, alpha, gateway } = started));

const SYSTEM = [{ type: 'text' as const, text: 'You review code. '.repeat(200), cache_control: { type: 'ephemeral' as const } }];

/** What Anthropic answers a pre-warming request: nothing generated, the prompt written to the cache. */
const WARMED = {
  id: 'msg_01PreWarm0000000000000000',
  type: 'message',
  role: 'assistant',
  model: 'up-alpha',
  content: [],
  stop_reason: 'max_tokens',
  stop_sequence: null,
  usage: { input_tokens: 4, output_tokens: 0, cache_creation_input_tokens: 806, cache_read_input_tokens: 0 },
};

function warmRequest(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 0, system: SYSTEM, messages: [{ role: 'user', content: 'Warm up' }], ...extra };
}

describe('max_tokens 0 (prompt cache pre-warming)', () => {
  it('from the Anthropic SDK reaches an Anthropic-format upstream as sent, and its answer comes back', async () => {
    alpha.enqueue(reply.json(WARMED));
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0, timeout: 10_000 });

    const message = await client.messages.create({ model: 'test/anthropic', max_tokens: 0, system: SYSTEM, messages: [{ role: 'user', content: 'Warm up' }] });

    expect(message.content).toEqual([]);
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.cache_creation_input_tokens).toBe(806);
    expect(alpha.requests).toHaveLength(1);
    expect(alpha.lastRequest().body).toEqual({ model: 'up-alpha', max_tokens: 0, system: SYSTEM, messages: [{ role: 'user', content: 'Warm up' }] });
  });

  it('reaches an Anthropic-format upstream byte for byte', async () => {
    alpha.enqueue(reply.json(WARMED));
    const body = warmRequest('test/anthropic');
    const response = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

    expect(response.status, await response.clone().text()).toBe(200);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'up-alpha' }));
  });

  it('is a 400 naming it from an OpenAI endpoint, which is never called', async () => {
    const call = await postMessage(gateway, warmRequest('test/openai'));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400 });
    expect(errorMessage(call)).toContain('max_tokens 0 (prompt cache pre-warming) is not supported by OpenAI Chat Completions');
    expect(openai.requests).toHaveLength(0);
  });

  it('skips the OpenAI endpoint of a plan for the Anthropic one after it', async () => {
    alpha.enqueue(reply.json(WARMED));
    const call = await postMessage(gateway, warmRequest('test/both', { provider: { order: ['openai', 'alpha'] } }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(metadataOf(call).attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ['OpenAI', 'unsupported'],
      ['Alpha Cloud', 'success'],
    ]);
    expect(openai.requests).toHaveLength(0);
    expect((alpha.lastRequest().body as { max_tokens?: unknown }).max_tokens).toBe(0);
  });

  it('is counted on count_tokens like any other request', async () => {
    const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(warmRequest('test/anthropic')),
    });

    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 12 });
    expect(alpha.lastRequest().path).toBe('/v1/messages/count_tokens');
    expect(alpha.lastRequest().body).not.toHaveProperty('max_tokens');
  });
});
