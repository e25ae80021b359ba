/**
 * End to end through the real gateway with the official Anthropic SDK, against an Anthropic-format upstream
 * replaying real recordings: messages and streams (text, thinking with signatures, tool use, server tools
 * with cache usage), a tool-use round trip, cost to the cent, BYOK keys, and broken upstream answers.
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import {
  expectCost,
  expectInBandStreamError,
  expectTypedServerError,
  expectWellFormed,
  finalStreamUsage,
  gatewayUsage,
  providerOf,
  rejectionOf,
  streamThrough,
  WEATHER_TOOL,
} from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';

const SHARED_KEY = 'sk-ant-e2e-shared-key-0001';
const BYOK_KEY = 'sk-ant-e2e-byok-key-7q2w9e';
const MODEL = 'e2e/claude';
// Prices per million tokens: input 3, output 15, cache read 0.3, cache write 3.75.
const PRICING = '{ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }';

const e2e = useE2eTarget({
  startUpstream: startFakeAnthropic,
  providerYaml: (fake) => `  anthropic: { base_url: "${fake.url}", api_key: "${SHARED_KEY}" }`,
  model: { slug: MODEL, provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5', pricing: PRICING },
});

const hello = { model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hello, how are you?' }] };

describe('Anthropic-format upstream, shared key', () => {
  it('returns the recorded message with the gateway slug, provider, usage and cost', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-text'));
    const message = await e2e.client.messages.create(hello);
    const recorded = readFixture('anthropic', 'anthropic-text') as { id: string; content: unknown };

    expect(message.id).toBe(recorded.id);
    expect(message.content).toEqual(recorded.content);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('Anthropic');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 12, output_tokens: 29, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, is_byok: false });
    // 12 input x $3/M + 29 output x $15/M = (36 + 435) / 1e6 = $0.000471
    expectCost(usage.cost, 0.000471);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(SHARED_KEY);
    expect(sent?.body).toEqual({ ...hello, model: 'claude-sonnet-4-5' });
  });

  it('streams thinking with its signature, then text, as the SDK accumulates them', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-clear-thinking.1'));
    const { events, message } = await streamThrough(e2e.client, { ...hello, thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 });
    const recorded = readChunks('anthropic', 'anthropic-clear-thinking.1') as Array<{ type: string; delta?: { type: string; thinking?: string; signature?: string } }>;
    const recordedThinking = recorded.flatMap((chunk) => (chunk.delta?.type === 'thinking_delta' ? [chunk.delta.thinking] : [])).join('');
    const recordedSignature = recorded.find((chunk) => chunk.delta?.type === 'signature_delta')?.delta?.signature;

    expect(expectWellFormed(events)).toEqual(['start 0 thinking', 'delta 0 thinking_delta', 'delta 0 signature_delta', 'stop 0', 'start 1 text', 'delta 1 text_delta', 'stop 1', 'message_delta']);
    const [thinking, text] = message.content;
    expect(thinking?.type).toBe('thinking');
    expect(thinking?.type === 'thinking' && thinking.thinking).toBe(recordedThinking);
    expect(recordedThinking).toContain('925');
    expect(thinking?.type === 'thinking' && thinking.signature).toBe(recordedSignature);
    expect(text).toMatchObject({ type: 'text', text: expect.stringContaining('925 ÷ 5 = 185') });
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('Anthropic');

    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 69, output_tokens: 53, is_byok: false });
    // 69 x $3/M + 53 x $15/M = (207 + 795) / 1e6 = $0.001002
    expectCost(usage.cost, 0.001002);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ stream: true, model: 'claude-sonnet-4-5', thinking: { type: 'enabled', budget_tokens: 1024 } });
  });

  it('streams server tool blocks and prices cache reads and writes separately', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-code-execution-20260120-prompt-cache.1'));
    const { events, message } = await streamThrough(e2e.client, hello);
    const blockTypes = events.flatMap((event) => (event.type === 'content_block_start' ? [event.content_block.type] : []));
    expect(blockTypes).toEqual(['server_tool_use', 'bash_code_execution_tool_result', 'server_tool_use', 'bash_code_execution_tool_result', 'text']);
    expect(message.content.map((block) => block.type)).toEqual(blockTypes);
    expect(message.content[0]).toMatchObject({ type: 'server_tool_use', name: 'bash_code_execution', input: expect.objectContaining({ command: expect.any(String) }) });

    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 6, output_tokens: 198, cache_creation_input_tokens: 3337, cache_read_input_tokens: 6289 });
    // 6 x $3 + 198 x $15 + 6289 cache reads x $0.30 + 3337 cache writes x $3.75, per million
    // = (18 + 2970 + 1886.7 + 12513.75) / 1e6 = $0.01738845
    expectCost(usage.cost, 0.01738845);
  });

  it('completes a tool-use round trip: tool_use with parsed input, then the tool_result reaches the upstream', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-json-tool.1'), reply.fixture('anthropic-text'));
    const question = { role: 'user' as const, content: 'Weather in four cities, as JSON' };
    const jsonTool = { ...WEATHER_TOOL, name: 'json' };
    const first = await e2e.client.messages.create({ ...hello, tools: [jsonTool], messages: [question] });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', name: 'json' });
    expect((toolUse?.type === 'tool_use' ? toolUse.input : undefined) as { elements: unknown[] }).toMatchObject({ elements: expect.arrayContaining([{ location: 'London', temperature: 0, condition: 'snowy' }]) });
    // 1151 x $3/M + 87 x $15/M = (3453 + 1305) / 1e6 = $0.004758
    expectCost(gatewayUsage(first).cost, 0.004758);

    const toolResult = { type: 'tool_result' as const, tool_use_id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', content: 'stored', is_error: false };
    const second = await e2e.client.messages.create({
      ...hello,
      tools: [jsonTool],
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [toolResult] }],
    });
    expect(second.stop_reason).toBe('end_turn');
    const sent = e2e.upstream.lastRequest()?.body as { messages: Array<{ role: string; content: unknown }> };
    // Passthrough: the upstream receives Anthropic's own wire format, unchanged.
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: first.content });
    expect(sent.messages[2]).toEqual({ role: 'user', content: [toolResult] });
  });

  it('streams a tool call whose input the SDK parses from input_json deltas', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-json-tool.1'));
    const { events, message } = await streamThrough(e2e.client, { ...hello, tools: [{ ...WEATHER_TOOL, name: 'json' }] });
    expect(expectWellFormed(events)).toContain('delta 0 input_json_delta');
    const toolUse = message.content.find((block) => block.type === 'tool_use');
    expect(toolUse?.type === 'tool_use' && toolUse.name).toBe('json');
    expect((toolUse?.type === 'tool_use' ? toolUse.input : {}) as { elements: unknown[] }).toMatchObject({ elements: expect.any(Array) });
    expect(message.stop_reason).toBe('tool_use');
    // 849 x $3/M + 47 x $15/M = (2547 + 705) / 1e6 = $0.003252
    expectCost(finalStreamUsage(events).cost, 0.003252);
  });

  it("forwards every event it does not amend byte for byte, as the upstream framed it", async () => {
    // Text a parse and re-serialisation would change: spaces after colons, escaped characters, key order,
    // unknown fields and events, data over two lines.
    const upstreamFrames = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_bytes","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}\n\n',
      'event: ping\ndata: {"type": "ping"}\n\n',
      'event: content_block_delta\ndata: {"index":0,"type":"content_block_delta","delta":{"text":"caf\\u00e9 \\ud83d\\ude00 \\/","type":"text_delta"},"future_field_20270101":1}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\ndata:  "delta":{"type":"text_delta","text":"!"}}\n\n',
      'event: future_event_20270101\ndata: {"type": "future_event_20270101", "detail": 1.50}\n\n',
      'event: content_block_stop\ndata: {"type": "content_block_stop", "index": 0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}\n\n',
      'event: message_stop\ndata: {"type": "message_stop"}\n\n',
    ];
    e2e.upstream.enqueue(reply.sse(upstreamFrames));
    const response = await fetch(`${e2e.gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    expect(response.status).toBe(200);
    const clientFrames = (await response.text()).split(/(?<=\n\n)/);

    expect(clientFrames).toHaveLength(upstreamFrames.length);
    const amended = new Set([0, 7]);
    upstreamFrames.forEach((frame, index) => {
      if (!amended.has(index)) expect(clientFrames[index], `frame ${index}`).toBe(frame);
    });
    expect(clientFrames[0]).toContain(`"model":"${MODEL}"`);
    expect(clientFrames[7]).toContain('"is_byok":false');
  });
});

describe('Anthropic-format upstream, broken answers', () => {
  it('answers a JSON body cut short with a 502 in Anthropic error shape', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-text', { truncate: { afterEvents: 0, plusBytes: 120, mode: 'end' } }));
    expectTypedServerError(await rejectionOf(e2e.client.messages.create(hello)), ['msg_01VdEjxAP5ahtHKrrRdNBteQ', SHARED_KEY]);
  });

  it('answers a connection reset before the answer with a 5xx', async () => {
    e2e.upstream.enqueue(reply.reset());
    expectTypedServerError(await rejectionOf(e2e.client.messages.create(hello)));
  });

  it('answers a body that stalls after the headers with a 5xx once the body timeout passes', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-text', { stallAfterEvents: 0 }));
    expectTypedServerError(await rejectionOf(e2e.client.messages.create(hello)));
  });

  it('ends a stream cut short with an in-band error the SDK raises', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-clear-thinking.1', { truncate: { afterEvents: 3, plusBytes: 20, mode: 'end' } }));
    await expectInBandStreamError(e2e.client, hello);
  });

  it('ends a stream whose socket is reset mid-way with an in-band error', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-clear-thinking.1', { truncate: { afterEvents: 3, mode: 'destroy' } }));
    await expectInBandStreamError(e2e.client, hello);
  });

  it("relays the vendor's in-stream error as a typed in-band error without its message", async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-clear-thinking.1', { streamError: { afterEvents: 3, status: 529, message: 'vendor-detail-overloaded-7f3a' } }));
    const events = await expectInBandStreamError(e2e.client, hello, ['vendor-detail-overloaded-7f3a']);
    expect(events.length).toBeGreaterThan(1);
  });

  it('ends a stream that stalls mid-way with an in-band error, not a hang', async () => {
    e2e.upstream.enqueue(reply.fixture('anthropic-clear-thinking.1', { stallAfterEvents: 3 }));
    await expectInBandStreamError(e2e.client, hello);
  });
});

describeByokCredential('Anthropic-format upstream', {
  suite: e2e,
  provider: 'anthropic',
  key: BYOK_KEY,
  sentAs: 'upstream as x-api-key',
  keyOf: (sent) => sent.headers['x-api-key'],
  expectedKey: BYOK_KEY,
  request: hello,
  replies: { message: reply.fixture('anthropic-text'), stream: reply.fixture('anthropic-text') },
  // Same recording, same prices: a BYOK call is priced like any other (12 x $3 + 29 x $15 per million).
  cost: 0.000471,
  sharedSecret: SHARED_KEY,
});
