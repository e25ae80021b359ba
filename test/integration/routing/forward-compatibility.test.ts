/**
 * The forward-compatibility rule over HTTP: what Anthropic may add (a block type, a top-level field, a thinking
 * type, a role) reaches an Anthropic-format upstream byte for byte, is a 400 naming it from an OpenAI endpoint,
 * and in a plan with both the OpenAI endpoint is skipped (`unsupported`) for the Anthropic one. A client's own
 * mistake stops at once: no endpoint is tried after it, and a fifth cache marker reaches no upstream at all.
 */
import { describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { errorMessage, metadataOf, WITH_METADATA, type MessageCall } from './routing-support.ts';
import { useMixedVendorGateway } from './mixed-vendor-gateway.ts';

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
useMixedVendorGateway((started) => ({ openai, alpha, gateway } = started));

/** Posts the body as the exact JSON text given, so what the upstream receives can be compared byte for byte. */
async function postRaw(text: string, headers: Record<string, string> = {}): Promise<MessageCall> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...headers },
    body: text,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

function request(model: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...fields };
}

const FUTURE = [
  ['a new block type', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'future_block_20270101', payload: { frames: [1, 2] } }] }] }, 'future_block_20270101 blocks in user messages'],
  ['an unknown top-level field', { future_parameter_20270101: { enabled: true, level: 3 } }, 'field future_parameter_20270101'],
  ['a new thinking type', { thinking: { type: 'turbo_20270101', budget: 'auto' } }, 'thinking type turbo_20270101'],
  ['a new role', { messages: [{ role: 'user', content: 'Hello there' }, { role: 'critic_20270101', content: [{ type: 'text', text: 'Be harsh.' }] }] }, 'role critic_20270101'],
  // Deprecated by Anthropic (the TypeScript SDK rewrites it as output_config.format), still sent by older clients.
  ['the deprecated output_format', { output_format: { type: 'json_schema', schema: { type: 'object', properties: { city: { type: 'string' } } } } }, 'field output_format'],
] as const;

describe('a value Anthropic adds tomorrow', () => {
  it.each(FUTURE)('(%s) reaches an Anthropic-format upstream byte for byte', async (_name, fields) => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = request('test/anthropic', fields);
    const call = await postRaw(JSON.stringify(body));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.requests).toHaveLength(1);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'up-alpha' }));
  });

  it.each(FUTURE)('(%s) is a 400 naming it from an OpenAI endpoint, which is never called', async (_name, fields, named) => {
    const call = await postRaw(JSON.stringify(request('test/openai', fields)));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400 });
    expect(errorMessage(call)).toContain(`${named}`);
    expect(errorMessage(call)).toContain('is not supported by OpenAI Chat Completions');
    expect(openai.requests).toHaveLength(0);
  });

  it.each(FUTURE)('(%s) skips the OpenAI endpoint of a plan for the Anthropic one after it', async (_name, fields) => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = request('test/both', { ...fields, provider: { order: ['openai', 'alpha'] } });
    const call = await postRaw(JSON.stringify(body), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(metadataOf(call).attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ['OpenAI', 'unsupported'],
      ['Alpha Cloud', 'success'],
    ]);
    expect(openai.requests).toHaveLength(0);
    const { provider: _provider, ...forwarded } = body;
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...forwarded, model: 'up-alpha' }));
  });
});

describe("a client's own mistake", () => {
  const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });

  it('a fifth cache marker is a 400 before any upstream is called', async () => {
    const body = request('test/both', {
      system: [marked('one'), marked('two')],
      messages: [
        { role: 'user', content: [marked('three')] },
        { role: 'system', content: [marked('four')] },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [marked('five')] },
      ],
    });
    const call = await postRaw(JSON.stringify(body), WITH_METADATA);

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: at most 4 blocks may carry cache_control, found 5');
    expect(openai.requests).toHaveLength(0);
    expect(alpha.requests).toHaveLength(0);
  });

  it('a top-level cache_control with all four breakpoints taken is a 400 before any upstream is called', async () => {
    const body = request('test/both', {
      cache_control: { type: 'ephemeral' },
      system: [marked('one'), marked('two')],
      messages: [{ role: 'user', content: [marked('three'), marked('four'), { type: 'text', text: 'five' }] }],
    });
    const call = await postRaw(JSON.stringify(body), WITH_METADATA);

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe(
      "Invalid request parameters: the top-level cache_control needs a cache breakpoint of its own, and the request's 4 cache_control markers take all 4",
    );
    expect(openai.requests).toHaveLength(0);
    expect(alpha.requests).toHaveLength(0);
  });

  it('a top-level cache_control reaches Anthropic as one marker on the last cacheable block, past thinking', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const thinking = { type: 'thinking', thinking: 'hm', signature: 'sig' };
    const body = request('test/anthropic', {
      cache_control: { type: 'ephemeral', ttl: '1h' },
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello there' }, { role: 'assistant', content: [{ type: 'text', text: 'Hi' }, thinking] }],
    });
    const call = await postRaw(JSON.stringify(body));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = alpha.lastRequest().body as Record<string, unknown>;
    expect(sent).not.toHaveProperty('cache_control');
    expect(sent.system).toBe('Be brief.');
    expect(sent.messages).toEqual([
      { role: 'user', content: 'Hello there' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }, thinking] },
    ]);
  });

  it('four markers, one of them on a system message, are accepted', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = request('test/anthropic', {
      system: [marked('one'), marked('two')],
      messages: [{ role: 'user', content: [marked('three')] }, { role: 'system', content: [marked('four')] }],
    });
    const call = await postRaw(JSON.stringify(body));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'up-alpha' }));
  });

  it('stops at the first endpoint that finds it, without trying the next', async () => {
    const body = request('test/both', {
      provider: { order: ['openai', 'alpha'] },
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nowhere', content: 'done' }] }],
    });
    const call = await postRaw(JSON.stringify(body), WITH_METADATA);

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: tool_result toolu_nowhere does not answer a tool_use of an earlier assistant turn');
    expect(openai.requests).toHaveLength(0);
    expect(alpha.requests).toHaveLength(0);
  });
});
