import { describe, expect, it } from 'vitest';
import type { GatewayMetadata, MessageResponse } from '#src/api-types.ts';
import { amendStream, finalizeMessage, type AdditionsContext, type UsageForCost } from '#src/messages/gateway-additions.ts';
import { isRawSseEvent, sseEventName, type RawSseEvent, type SseEvent } from '#src/providers/provider-adapter.ts';
import { wireEvent } from '#test/helpers/sse-events.ts';
import { readChunks, readFixture } from '#test/helpers/fake-upstreams/index.ts';

// $3 / $15 / $0.30 / $3.75 per million tokens, as for Claude Sonnet.
function price(usage: UsageForCost): number {
  return (
    (usage.input_tokens * 3 + usage.output_tokens * 15 + (usage.cache_read_input_tokens ?? 0) * 0.3 + (usage.cache_creation_input_tokens ?? 0) * 3.75) /
    1_000_000
  );
}

function context(overrides: Partial<AdditionsContext> = {}): AdditionsContext & { priced: UsageForCost[] } {
  const priced: UsageForCost[] = [];
  return {
    model: 'anthropic/claude-sonnet-4.5',
    providerName: 'Anthropic',
    isByok: true,
    priceUsage(usage) {
      priced.push(structuredClone(usage));
      return price(usage);
    },
    priced,
    ...overrides,
  };
}

const metadata: GatewayMetadata = {
  attempt: 1,
  endpoints: { available: [{ model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic', selected: true }], total: 1 },
  generation_time: 12,
  is_byok: true,
  region: 'global',
  requested: 'anthropic/claude-sonnet-4.5',
  strategy: 'price',
  summary: 'served',
  attempts: [],
};

describe('finalizeMessage', () => {
  it('sets the model slug, the provider, the cost and is_byok and keeps everything else', () => {
    const upstream = readFixture<MessageResponse>('anthropic', 'anthropic-text');
    const before = structuredClone(upstream);
    const finalized = finalizeMessage(upstream, context());

    expect(finalized).toEqual({
      ...before,
      model: 'anthropic/claude-sonnet-4.5',
      provider: 'Anthropic',
      usage: { ...before.usage, cost: (12 * 3 + 29 * 15) / 1_000_000, is_byok: true },
    });
    expect(finalized).not.toHaveProperty('gateway_metadata');
    expect(upstream).toEqual(before);
  });

  it('prices cache reads and writes', () => {
    const upstream = readFixture<MessageResponse>('anthropic', 'anthropic-web-search-tool.1');
    const additions = context({ isByok: false });
    const finalized = finalizeMessage(upstream, additions);
    expect(additions.priced[0]).toMatchObject({
      input_tokens: upstream.usage.input_tokens,
      output_tokens: upstream.usage.output_tokens,
      cache_read_input_tokens: upstream.usage.cache_read_input_tokens,
      cache_creation_input_tokens: upstream.usage.cache_creation_input_tokens,
    });
    expect(finalized.usage).toMatchObject({ cost: price(upstream.usage), is_byok: false });
  });

  it('fills service_tier when the upstream left it out', () => {
    const upstream = readFixture<MessageResponse>('anthropic', 'anthropic-text');
    delete upstream.usage.service_tier;
    expect(finalizeMessage(upstream, context()).usage.service_tier).toBe('standard');
  });

  it('adds gateway_metadata only when asked', () => {
    const finalized = finalizeMessage(readFixture<MessageResponse>('anthropic', 'anthropic-text'), context({ metadata: () => metadata }));
    expect(finalized.gateway_metadata).toEqual(metadata);
  });
});

function eventsOf(fixture: string): RawSseEvent[] {
  return readChunks<{ type: string }>('anthropic', fixture).map((payload) => ({ event: payload.type, data: JSON.stringify(payload) }));
}

async function* source(events: readonly SseEvent[]): AsyncGenerator<SseEvent> {
  for (const event of events) yield event;
}

/** The data text of an event as the client receives it. */
function wire(event: SseEvent | undefined): string {
  return event ? wireEvent(event).data : '';
}

async function amend(events: readonly SseEvent[], additions: AdditionsContext): Promise<SseEvent[]> {
  const amended: SseEvent[] = [];
  for await (const event of amendStream(source(events), additions)) amended.push(event);
  return amended;
}

const REWRITTEN = new Set(['message_start', 'message_delta', 'message_stop']);

describe('amendStream', () => {
  it.each(['anthropic-text', 'anthropic-clear-thinking.1', 'anthropic-json-tool.1', 'anthropic-web-search-tool.1'])(
    'passes every event of %s other than message_start/delta/stop byte for byte, in order',
    async (fixture) => {
      const original = eventsOf(fixture);
      const amended = await amend(original, context());
      expect(amended.map(sseEventName)).toEqual(original.map((event) => event.event));
      amended.forEach((event, index) => {
        if (!REWRITTEN.has(sseEventName(event))) expect(event).toBe(original[index]);
      });
    },
  );

  it('rewrites message_start with the model slug and provider and keeps the rest of it', async () => {
    const original = eventsOf('anthropic-text');
    const [start] = await amend(original, context());
    const upstream = JSON.parse(original[0]?.data ?? '') as { message: Record<string, unknown> };
    expect(JSON.parse(wire(start))).toEqual({ ...upstream, message: { ...upstream.message, model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic' } });
  });

  it('prices the cumulative usage in message_delta and marks is_byok', async () => {
    const additions = context();
    const amended = await amend(eventsOf('anthropic-text'), additions);
    const delta = JSON.parse(wire(amended.find((event) => sseEventName(event) === 'message_delta'))) as Record<string, unknown>;
    expect(delta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 30, cost: (12 * 3 + 30 * 15) / 1_000_000, is_byok: true },
    });
  });

  it('takes input tokens reported late in message_delta over those of message_start', async () => {
    const additions = context();
    await amend(eventsOf('anthropic-message-delta-input-tokens'), additions);
    expect(additions.priced).toEqual([{ input_tokens: 61, output_tokens: 2, cache_creation_input_tokens: null, cache_read_input_tokens: null, cache_creation: null }]);
  });

  it('keeps input and cache tokens of message_start when message_delta carries only output tokens', async () => {
    const events: SseEvent[] = [
      { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'x', stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 50, output_tokens: 1 } } }) },
      { event: 'message_delta', data: JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 } }) },
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ];
    const additions = context({ isByok: false });
    const amended = await amend(events, additions);
    const delta = JSON.parse(wire(amended[1])) as { usage: Record<string, unknown> };
    expect(delta.usage).toEqual({ output_tokens: 40, cost: (100 * 3 + 40 * 15 + 2000 * 0.3 + 50 * 3.75) / 1_000_000, is_byok: false });
  });

  it('prices the cache tokens of a prompt-cache stream from their final values', async () => {
    const additions = context();
    await amend(eventsOf('anthropic-code-execution-20260120-prompt-cache.1'), additions);
    expect(additions.priced).toHaveLength(1);
    expect(additions.priced[0]).toMatchObject({ input_tokens: 6, output_tokens: 198, cache_creation_input_tokens: 3337, cache_read_input_tokens: 6289 });
  });

  it('leaves message_stop untouched without metadata and adds gateway_metadata to it when asked', async () => {
    const original = eventsOf('anthropic-text');
    const plain = await amend(original, context());
    expect(plain.at(-1)).toBe(original.at(-1));

    let built = 0;
    const withMetadata = await amend(original, context({ metadata: () => ((built += 1), metadata) }));
    expect(JSON.parse(wire(withMetadata.at(-1)))).toEqual({ type: 'message_stop', gateway_metadata: metadata });
    expect(built).toBe(1);
  });

  it('builds the metadata only when message_stop arrives, so generation_time covers the whole stream', async () => {
    let builtAfter = -1;
    let seen = 0;
    const additions = context({ metadata: () => ((builtAfter = seen), metadata) });
    for await (const event of amendStream(source(eventsOf('anthropic-text')), additions)) {
      if (sseEventName(event) !== 'message_stop') seen += 1;
    }
    expect(builtAfter).toBe(eventsOf('anthropic-text').length - 1);
  });

  it("amends an upstream's three events as objects, parsed once, for the writer to serialise", async () => {
    const amended = await amend(eventsOf('anthropic-text'), context({ metadata: () => metadata }));
    for (const event of amended) expect(isRawSseEvent(event)).toBe(!REWRITTEN.has(sseEventName(event)));
  });

  it("amends the translator's typed events in place, with no text to parse", async () => {
    const message = { ...readFixture<MessageResponse>('anthropic', 'anthropic-text'), content: [] };
    const typed: SseEvent[] = [
      { type: 'message_start', message },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 12, output_tokens: 30 } },
      { type: 'message_stop' },
    ];
    const amended = await amend(typed, context({ metadata: () => metadata }));
    expect(amended[0]).toBe(typed[0]);
    expect(amended[0]).toMatchObject({ message: { model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic' } });
    expect(amended[1]).toBe(typed[1]);
    expect(amended[1]).toMatchObject({ usage: { output_tokens: 30, cost: (12 * 3 + 30 * 15) / 1_000_000, is_byok: true } });
    expect(amended[2]).toEqual({ type: 'message_stop', gateway_metadata: metadata });
  });

  it('passes a failure of the upstream stream on', async () => {
    async function* broken(): AsyncGenerator<SseEvent> {
      yield* eventsOf('anthropic-text').slice(0, 3);
      throw new Error('cut');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of amendStream(broken(), context())) seen.push(sseEventName(event));
      })(),
    ).rejects.toThrow('cut');
    expect(seen).toEqual(['message_start', 'content_block_start', 'ping']);
  });
});
