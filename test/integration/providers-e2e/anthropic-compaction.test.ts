/**
 * Anthropic's server-side compaction through the passthrough, replayed from a real recording: the answer opens
 * with a `compaction` block, and its usage lists the compaction iteration apart from the answer's own counts.
 * Anthropic bills both; the gateway's `cost` (what the key is charged) must too, in the message and the
 * stream, and the block must come back to Anthropic on the next turn as the client passes it.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/claude';
// Prices per million tokens: input 3, output 15, cache read 0.3, cache write 3.75.
const e2e = useE2eTarget({
  startUpstream: startFakeAnthropic,
  providerYaml: (fake) => `  anthropic: { base_url: "${fake.url}", api_key: "sk-ant-e2e-compaction-0001" }`,
  model: { slug: MODEL, provider: 'anthropic', upstreamModel: 'claude-opus-4-6', pricing: '{ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }' },
});

const request = {
  model: MODEL,
  max_tokens: 4096,
  messages: [{ role: 'user' as const, content: 'Summarize the key algorithms from the documentation above.' }],
  context_management: { edits: [{ type: 'compact_20260112' }] },
};
const options = { headers: { 'anthropic-beta': 'compact-2026-01-12' } };

interface Recorded {
  content: Array<{ type: string; content?: string }>;
  usage: { input_tokens: number; output_tokens: number; iterations: Array<{ type: string; input_tokens: number; output_tokens: number }> };
}

describe('Anthropic-format upstream with server-side compaction', () => {
  it('charges the compaction iteration on top of the answer, and passes the compaction block on (JSON)', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-compaction.1'));
    const message = await e2e.client.messages.create(request as never, options);
    const recorded = readFixture<Recorded>('anthropic', 'anthropic-compaction.1');

    expect(message.content).toEqual(recorded.content);
    expect(message.content[0]).toMatchObject({ type: 'compaction', content: expect.stringContaining('Summary of Conversation') });
    const usage = gatewayUsage(message);
    // The answer's own counts, as Anthropic sent them; the compaction iteration is listed apart.
    expect(usage).toMatchObject({ input_tokens: 682, output_tokens: 1320, iterations: recorded.usage.iterations });
    // Answer 682 in x $3/M + 1320 out x $15/M = (2046 + 19800) / 1e6, plus the compaction iteration
    // 60385 in x $3/M + 592 out x $15/M = (181155 + 8880) / 1e6: $0.211881 in all.
    expectCost(usage.cost, 0.211881);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ context_management: request.context_management });

    // The next turn carries the compaction block back, as Anthropic's docs have the client do.
    e2e.upstream.enqueue(reply.fixture('anthropic-text'));
    const next = {
      ...request,
      messages: [...request.messages, { role: 'assistant' as const, content: message.content }, { role: 'user' as const, content: 'Thanks. And the data structures?' }],
    };
    await e2e.client.messages.create(next as never, options);
    const sent = e2e.upstream.lastRequest()?.body as { messages: Array<{ content: unknown }> };
    expect(sent.messages[1]?.content).toEqual(recorded.content);
  });

  it('charges the compaction iteration in the stream, whose message_delta lists it', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-compaction.1'));
    const { events } = await streamThrough(e2e.client, request as never);
    const outline = expectWellFormed(events);
    expect(outline[0]).toBe('start 0 compaction');
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 612, output_tokens: 2819 });
    // Answer 612 in x $3/M + 2819 out x $15/M = (1836 + 42285) / 1e6, plus the compaction iteration
    // 60385 in x $3/M + 522 out x $15/M = (181155 + 7830) / 1e6: $0.233106 in all.
    expectCost(usage.cost, 0.233106);
  });
});
