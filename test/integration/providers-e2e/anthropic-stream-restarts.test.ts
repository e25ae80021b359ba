/**
 * Anthropic-format upstream streams that open their message twice, replayed from real recordings through the
 * gateway to the official SDK: a repeated `message_start` (same message id) is dropped so the client sees one
 * well-formed message; a second message started inside the first (another id, mid tool call) fails the stream
 * with an in-band error rather than handing the client two messages spliced into one.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectInBandStreamError, expectWellFormed, finalStreamUsage, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/claude';
// Prices per million tokens: input 3, output 15.
const e2e = useE2eTarget({
  startUpstream: startFakeAnthropic,
  providerYaml: (fake) => `  anthropic: { base_url: "${fake.url}", api_key: "sk-ant-e2e-restarts-0001" }`,
  model: { slug: MODEL, provider: 'anthropic', upstreamModel: 'claude-3-haiku-20240307', pricing: '{ input: 3, output: 15 }' },
});

const hello = { model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Say hello.' }] };

describe('Anthropic-format upstream that repeats message_start', () => {
  it('passes one message_start for a repeated one (duplicate-message-start recording)', async () => {
    e2e.upstream.enqueue(reply.fixture('duplicate-message-start'));
    const { events, message } = await streamThrough(e2e.client, hello);
    expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
    expect(expectWellFormed(events)).toEqual(['start 0 text', 'delta 0 text_delta', 'stop 0', 'message_delta']);
    expect(message).toMatchObject({ id: 'msg_dup', model: MODEL, stop_reason: 'end_turn', content: [{ type: 'text', text: 'Hello, World!' }] });
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ output_tokens: 227 });
    // 17 input x $3/M + 227 output x $15/M = (51 + 3405) / 1e6 = $0.003456: the input counted once.
    expectCost(usage.cost, 0.003456);
  });

  it('fails the stream in band when a second message starts inside the first (spliced-message-start recording)', async () => {
    e2e.upstream.enqueue(reply.fixture('spliced-message-start'));
    const tools = [{ name: 'test-tool', input_schema: { type: 'object' as const, properties: { value: { type: 'string' } } } }];
    const events = await expectInBandStreamError(e2e.client, { ...hello, tools });
    // The first message's events up to its half-written tool call, and nothing of the second.
    expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'content_block_start').map((event) => event.index)).toEqual([0, 1]);
    expect(JSON.stringify(events)).not.toContain('toolu_second');
  });
});
