/**
 * Over HTTP, the tool loop on Anthropic-format upstreams, JSON and stream: the model asks for a gateway tool,
 * the gateway runs it and calls the model again with the result, until the model answers. The client gets one
 * message for every step; the upstream never sees a `gateway:*` entry; usage and cost are the steps' sums;
 * the loop stays on the provider that served step 1 unless it fails; the metadata lists each step.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, reply, type ByteSplit } from '#test/helpers/fake-upstreams/index.ts';
import { eventPayload, metadataOf, postMessage, streamMessage, WITH_METADATA, type RoutingMetadata } from '#test/integration/routing/routing-support.ts';
import { expectCost } from '#test/integration/providers-e2e/e2e-support.ts';
import { bodyOf, loopBody, messagesOf, PRICES, toolNamesOf, useLoopGateway } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

const setup = useLoopGateway();
const ALPHA_FIRST = { provider: { order: ['alpha', 'beta'] } };
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };
const WEATHER = { name: 'weather', description: 'The weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

function scriptTwoSteps(split?: ByteSplit): void {
  const delivery = split ? { split } : {};
  setup.alpha.enqueue(
    anthropicStep({ text: 'Let me check the clock.', calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 1000, output: 40, cacheRead: 200, cacheWrite: 100 } }, delivery),
    anthropicStep({ text: 'It is afternoon in Paris.', usage: { input: 1300, output: 20, cacheRead: 1100 } }, delivery),
  );
}

/** The events as (name, payload) with ids, clock readings and timings made stable, for comparisons. */
function stable(events: { event: string; data: string }[]): unknown[] {
  const text = JSON.stringify(events.map((event) => [event.event, JSON.parse(event.data) as unknown]));
  return JSON.parse(text.replace(/srvtoolu_gw_[A-Za-z0-9_-]+/g, 'GATEWAY_ID').replace(/"msg_[A-Za-z0-9]+"/g, '"MSG"').replace(/"generation_time":\d+/g, '"generation_time":0').replace(/"duration_ms":\d+/g, '"duration_ms":0').replace(/"(datetime|unix_ms|utc_offset|day_of_week)":("[^"]*"|\d+)/g, '"$1":"X"')) as unknown[];
}

describe('the loop on an Anthropic-format upstream, JSON', () => {
  it('runs the tool between two model calls and answers with every step as blocks', async () => {
    scriptTwoSteps();
    const call = await postMessage(setup.gateway, loopBody('test/claude', [DATETIME, WEATHER], ALPHA_FIRST), WITH_METADATA);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const content = call.body.content as Record<string, unknown>[];
    expect(content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text']);
    const use = content[1] as { id: string; name: string; input: unknown };
    expect(use).toMatchObject({ name: 'datetime', input: { timezone: 'Europe/Paris' } });
    expect(use.id).toMatch(/^srvtoolu_gw_/);
    expect(content[2]).toMatchObject({ tool_use_id: use.id, content: { type: 'datetime_result', timezone: 'Europe/Paris' } });
    expect(call.body).toMatchObject({ model: 'test/claude', provider: 'Alpha Cloud', stop_reason: 'end_turn' });

    // The upstream saw the gateway tool as a function tool, never a gateway:* entry; the second call carried the result.
    const [first, second] = setup.alpha.requests;
    expect(toolNamesOf(first)).toEqual(['datetime', 'weather']);
    expect(JSON.stringify(first?.body)).not.toContain('gateway:');
    expect(bodyOf(first).stop_server_tools_when).toBeUndefined();
    const turns = messagesOf(second);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[1]?.content).toEqual([
      { type: 'text', text: 'Let me check the clock.' },
      { type: 'tool_use', id: use.id, name: 'datetime', input: { timezone: 'Europe/Paris' } },
    ]);
    const result = (turns[2]?.content as Record<string, unknown>[])[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: use.id });
    expect(JSON.stringify(result?.content)).toContain('Europe/Paris');
    expect(setup.beta.requests).toHaveLength(0);

    // Usage summed by hand: input 1000 + 1300, output 40 + 20, cache reads 200 + 1100, writes 100.
    const usage = call.body.usage as Record<string, unknown>;
    expect(usage).toMatchObject({ input_tokens: 2300, output_tokens: 60, cache_read_input_tokens: 1300, cache_creation_input_tokens: 100, server_tool_use: { datetime_requests: 1 }, is_byok: false });
    // Cost: the test model has no cache prices, so cache reads and writes cost the input price:
    // (2300 + 1300 + 100) x $3/M + 60 x $15/M = $0.0111 + $0.0009 = $0.012.
    expectCost(usage.cost as number, priceOf(2300 + 1300 + 100, 60, PRICES.claude));
    expectCost(usage.cost as number, 0.012);

    const metadata = metadataOf(call) as RoutingMetadata & { steps: Record<string, unknown>[] };
    expect(metadata.steps).toEqual([
      expect.objectContaining({ step: 1, model: 'test/claude', provider: 'Alpha Cloud', stop_reason: 'tool_use', tools_called: ['datetime'], tools_disabled: false }),
      expect.objectContaining({ step: 2, model: 'test/claude', provider: 'Alpha Cloud', stop_reason: 'end_turn', tools_called: [], tools_disabled: false }),
    ]);
    expect(metadata.steps[0]?.usage).toEqual({ input_tokens: 1000, output_tokens: 40, cache_creation_input_tokens: 100, cache_read_input_tokens: 200 });
    expectCost((metadata.steps[0]?.cost as number) + (metadata.steps[1]?.cost as number), usage.cost as number);
    expect(metadata.attempts.map((attempt) => [attempt.provider, attempt.status, (attempt as { step?: number }).step])).toEqual([
      ['Alpha Cloud', 'success', 1],
      ['Alpha Cloud', 'success', 2],
    ]);
    expect(metadata.summary).toBe('2 steps, 1 gateway tool call; served by test/claude on Alpha Cloud on the first attempt (order)');
  });

  it('a step whose provider fails moves to the next one, and the loop stays there', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 10, output: 5 } }), reply.error(529));
    setup.beta.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 20, output: 5 } }),
      anthropicStep({ text: 'Done.', usage: { input: 30, output: 5 } }),
    );
    const call = await postMessage(setup.gateway, loopBody('test/claude', [DATETIME], ALPHA_FIRST), WITH_METADATA);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(setup.alpha.requests).toHaveLength(2);
    expect(setup.beta.requests).toHaveLength(2);
    const metadata = metadataOf(call) as RoutingMetadata & { steps: { provider: string }[] };
    expect(metadata.steps.map((step) => step.provider)).toEqual(['Alpha Cloud', 'Beta Cloud', 'Beta Cloud']);
    expect(metadata.attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ['Alpha Cloud', 'success'],
      ['Alpha Cloud', 'overloaded'],
      ['Beta Cloud', 'success'],
      ['Beta Cloud', 'success'],
    ]);
    expect(call.body.provider).toBe('Alpha Cloud');
    expect(metadata.summary).toBe('3 steps, 2 gateway tool calls; test/claude on Alpha Cloud (overloaded) failed; served by test/claude on Beta Cloud');
  });
});

describe('the loop on an Anthropic-format upstream, stream', () => {
  it('is one message: one message_start, continuous indexes, the result as a whole block, one message_delta', async () => {
    scriptTwoSteps();
    const call = await streamMessage(setup.gateway, loopBody('test/claude', [DATETIME], ALPHA_FIRST), WITH_METADATA);
    expect(call.status).toBe(200);
    const outline = call.events.map((event) => {
      const data = JSON.parse(event.data) as { index?: number; content_block?: { type: string }; delta?: { type: string } };
      return [event.event, data.index, data.content_block?.type ?? data.delta?.type].filter((part) => part !== undefined).join(' ');
    });
    expect(outline).toEqual([
      'message_start',
      'ping',
      'content_block_start 0 text',
      'content_block_delta 0 text_delta',
      'content_block_delta 0 text_delta',
      'content_block_stop 0',
      'content_block_start 1 server_tool_use',
      'content_block_delta 1 input_json_delta',
      'content_block_delta 1 input_json_delta',
      'content_block_delta 1 input_json_delta',
      'content_block_stop 1',
      'content_block_start 2 datetime_tool_result',
      'content_block_stop 2',
      'ping',
      'content_block_start 3 text',
      'content_block_delta 3 text_delta',
      'content_block_delta 3 text_delta',
      'content_block_stop 3',
      'message_delta',
      'message_stop',
    ]);
    expect((eventPayload(call, 'message_start').message as Record<string, unknown>)).toMatchObject({ model: 'test/claude', provider: 'Alpha Cloud' });
    const delta = eventPayload(call, 'message_delta') as { delta: { stop_reason: string }; usage: Record<string, unknown> };
    expect(delta.delta.stop_reason).toBe('end_turn');
    expect(delta.usage).toMatchObject({ input_tokens: 2300, output_tokens: 60, cache_read_input_tokens: 1300, cache_creation_input_tokens: 100, server_tool_use: { datetime_requests: 1 } });
    expectCost(delta.usage.cost as number, 0.012);
    const metadata = eventPayload(call, 'message_stop').gateway_metadata as { steps: unknown[] };
    expect(metadata.steps).toHaveLength(2);
    const second = messagesOf(setup.alpha.requests[1]);
    expect(second.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(bodyOf(setup.alpha.requests[1]).stream).toBe(true);
  });
});

describe('stream well-formedness with the upstream\'s bytes cut at arbitrary boundaries', () => {
  it.each([{ every: 1 }, { every: 7 }, { seed: 3, maxChunkBytes: 5 }, { seed: 11, maxChunkBytes: 64 }])('Anthropic-format upstream, bytes cut %j: the same events as whole', async (split) => {
    scriptTwoSteps();
    const whole = await streamMessage(setup.gateway, loopBody('test/claude', [DATETIME], ALPHA_FIRST));
    scriptTwoSteps(split);
    const cut = await streamMessage(setup.gateway, loopBody('test/claude', [DATETIME], ALPHA_FIRST));
    expect(cut.events.length).toBeGreaterThan(15);
    expect(stable(cut.events)).toEqual(stable(whole.events));
  });

  it.each([{ every: 2 }, { seed: 5, maxChunkBytes: 9 }])('OpenAI Chat Completions upstream, bytes cut %j: the same events as whole', async (split) => {
    const script = (delivery: { split?: ByteSplit }) =>
      setup.openai.enqueue(
        openAiChatStep({ text: 'One moment.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 10, output: 5 } }, delivery),
        openAiChatStep({ text: 'It is noon, UTC.', usage: { input: 20, output: 6 } }, delivery),
      );
    script({});
    const whole = await streamMessage(setup.gateway, loopBody('test/gpt', [DATETIME]));
    script({ split });
    const cut = await streamMessage(setup.gateway, loopBody('test/gpt', [DATETIME]));
    const names = cut.events.map((event) => event.event);
    expect(names.filter((name) => name === 'message_start')).toHaveLength(1);
    expect(names.filter((name) => name === 'message_delta')).toHaveLength(1);
    expect(names.at(-1)).toBe('message_stop');
    expect(stable(cut.events)).toEqual(stable(whole.events));
  });
});
