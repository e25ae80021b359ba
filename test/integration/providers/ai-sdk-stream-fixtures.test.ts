/**
 * Every recorded stream of the AI SDK families, replayed by a fake vendor server over real HTTP and through
 * the real provider package: the exact event sequence, the message it folds into, and the same events
 * again when the server re-cuts the body at arbitrary byte boundaries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageResponse } from '#src/api-types.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import {
  reply,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeUpstream,
  type FixtureVendor,
} from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall, collapseOutline, collectEvents, eventOutline, foldEvents } from '#test/integration/providers/ai-sdk-test-support.ts';

interface StreamCase {
  family: AiSdkFamily;
  start: () => Promise<FakeUpstream>;
  fixture: string;
  vendor?: FixtureVendor;
  outline: string[];
  /** The folded message's blocks, with long texts cut to their start and signatures to their namespace. */
  content: unknown[];
  stopReason: NonNullable<MessageResponse['stop_reason']>;
  usage: Record<string, unknown>;
}

const standard = { cache_creation_input_tokens: 0, service_tier: 'standard' };

const cases: StreamCase[] = [
  {
    family: 'openai-chat',
    start: () => startFakeOpenAiChat(),
    fixture: 'openai-text',
    outline: ['message_start', 'start 0 text', 'delta 0 text_delta x300', 'stop 0', 'message_delta', 'message_stop'],
    content: [{ type: 'text', text: '**Holiday Name:** Harmony Day' }],
    stopReason: 'end_turn',
    usage: { input_tokens: 16, output_tokens: 300, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 0 }, ...standard },
  },
  {
    family: 'azure',
    start: () => startFakeOpenAiChat(),
    fixture: 'azure-model-router.1',
    outline: ['message_start', 'start 0 text', 'delta 0 text_delta x4', 'stop 0', 'message_delta', 'message_stop'],
    content: [{ type: 'text', text: 'Capital of Denmark.' }],
    stopReason: 'end_turn',
    usage: { input_tokens: 15, output_tokens: 78, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 64 }, ...standard },
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    fixture: 'groq-tool-call',
    vendor: 'groq',
    outline: ['message_start', 'start 0 tool_use', 'delta 0 input_json_delta', 'stop 0', 'message_delta', 'message_stop'],
    content: [{ type: 'tool_use', id: 'tk85n1k4m', name: 'weather', input: {} }],
    stopReason: 'tool_use',
    usage: { input_tokens: 210, output_tokens: 15, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 0 }, ...standard },
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    fixture: 'deepseek-reasoning',
    vendor: 'deepseek-chat',
    outline: ['message_start', 'start 0 thinking', 'delta 0 thinking_delta x205', 'delta 0 signature_delta', 'stop 0', 'start 1 text', 'delta 1 text_delta x13', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'thinking', thinking: 'We need to count the number of the letter "r"', signature: 'openaiCompatible' },
      { type: 'text', text: 'The word "strawberry" contains three "r"s.' },
    ],
    stopReason: 'end_turn',
    usage: { input_tokens: 18, output_tokens: 219, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 205 }, ...standard },
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    fixture: 'deepseek-tool-call',
    vendor: 'deepseek-chat',
    outline: ['message_start', 'start 0 thinking', 'delta 0 thinking_delta x39', 'delta 0 signature_delta', 'stop 0', 'start 1 tool_use', 'delta 1 input_json_delta x10', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'thinking', thinking: 'The user is asking for the weather in San Francisco.', signature: 'openaiCompatible' },
      { type: 'tool_use', id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', input: { location: 'San Francisco' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 19, output_tokens: 83, cache_read_input_tokens: 320, output_tokens_details: { thinking_tokens: 39 }, ...standard },
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    fixture: 'mistral-incremental-tool-call',
    vendor: 'mistral',
    outline: ['message_start', 'start 0 tool_use', 'delta 0 input_json_delta', 'stop 0', 'message_delta', 'message_stop'],
    content: [{ type: 'tool_use', id: 'chatcmpl-tool-9f149c74c42f265b', name: 'webSearchTool', input: { query: 'current Berlin weather' } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 43, output_tokens: 14, cache_read_input_tokens: 128, output_tokens_details: { thinking_tokens: 0 }, ...standard },
  },
  {
    family: 'google',
    start: () => startFakeGemini(),
    fixture: 'google-tool-call',
    // Gemini signs the function call; the signature rides an empty thinking block ahead of the tool_use.
    outline: ['message_start', 'start 0 thinking', 'delta 0 signature_delta', 'stop 0', 'start 1 tool_use', 'delta 1 input_json_delta', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'thinking', thinking: '', signature: 'google' },
      { type: 'tool_use', id: expect.any(String), name: 'weather', input: { location: 'San Francisco' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 29, output_tokens: 60, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 45 }, ...standard },
  },
  {
    family: 'google',
    start: () => startFakeGemini(),
    fixture: 'google-stream-no-args-tool-call',
    outline: [
      'message_start',
      'start 0 thinking',
      'delta 0 thinking_delta',
      'delta 0 signature_delta',
      'stop 0',
      'start 1 thinking',
      'delta 1 signature_delta',
      'stop 1',
      'start 2 tool_use',
      'stop 2',
      ...[3, 4, 5].flatMap((index) => [`start ${index} tool_use`, `delta ${index} input_json_delta x3`, `stop ${index}`]),
      'message_delta',
      'message_stop',
    ],
    content: [
      { type: 'thinking', thinking: '**Processing User Requests**', signature: 'google' },
      { type: 'thinking', thinking: '', signature: 'google' },
      { type: 'tool_use', id: expect.any(String), name: 'read_theme', input: {} },
      { type: 'tool_use', id: expect.any(String), name: 'read_screen', input: { id: 'A' } },
      { type: 'tool_use', id: expect.any(String), name: 'read_screen', input: { id: 'B' } },
      { type: 'tool_use', id: expect.any(String), name: 'read_screen', input: { id: 'C' } },
    ],
    stopReason: 'tool_use',
    usage: { input_tokens: 249, output_tokens: 241, cache_read_input_tokens: 0, output_tokens_details: { thinking_tokens: 183 }, ...standard },
  },
  {
    family: 'bedrock',
    start: () => startFakeBedrock(),
    fixture: 'amazon-bedrock-reasoning',
    outline: ['message_start', 'start 0 thinking', 'delta 0 thinking_delta x10', 'delta 0 signature_delta', 'stop 0', 'start 1 text', 'delta 1 text_delta x9', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'thinking', thinking: 'Let me count the r\'s in "strawberry":', signature: 'bedrock' },
      { type: 'text', text: 'There are **3** r\'s in "strawberry":' },
    ],
    stopReason: 'end_turn',
    usage: { input_tokens: 51, output_tokens: 94, cache_read_input_tokens: 0, ...standard },
  },
  {
    family: 'bedrock',
    start: () => startFakeBedrock(),
    fixture: 'amazon-bedrock-tool-call.1',
    outline: ['message_start', 'start 0 tool_use', 'delta 0 input_json_delta x2', 'stop 0', 'message_delta', 'message_stop'],
    content: [{ type: 'tool_use', id: 'tool-use-id', name: 'test-tool', input: { value: 'Sparkle Day' } }],
    stopReason: 'tool_use',
    usage: { input_tokens: 125, output_tokens: 45, cache_read_input_tokens: 0, ...standard },
  },
  {
    family: 'openai-responses',
    start: () => startFakeOpenAiResponses(),
    fixture: 'openai-reasoning-encrypted-content.1',
    outline: ['message_start', 'start 0 thinking', 'delta 0 thinking_delta x32', 'delta 0 signature_delta', 'stop 0', 'start 1 tool_use', 'delta 1 input_json_delta x13', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'thinking', thinking: '**', signature: 'openai' },
      { type: 'tool_use', id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', input: expect.any(Object) },
    ],
    stopReason: 'tool_use',
    usage: expect.objectContaining({ service_tier: 'standard' }) as never,
  },
  {
    family: 'openai-responses',
    start: () => startFakeOpenAiResponses(),
    fixture: 'openai-phase.1',
    outline: ['message_start', 'start 0 text', 'delta 0 text_delta x2', 'stop 0', 'start 1 text', 'delta 1 text_delta x2', 'stop 1', 'message_delta', 'message_stop'],
    content: [
      { type: 'text', text: 'Got it' },
      { type: 'text', text: 'Here are a few **AI' },
    ],
    stopReason: 'end_turn',
    usage: { input_tokens: 4040, output_tokens: 463, cache_read_input_tokens: 3072, output_tokens_details: { thinking_tokens: 64 }, ...standard },
  },
];

/** A block reduced to what the table states: text prefixes and the signature's namespace. */
function summarise(block: Record<string, unknown>, expected: Record<string, unknown>): Record<string, unknown> {
  const summary = { ...block };
  for (const field of ['text', 'thinking'] as const) {
    if (typeof summary[field] === 'string' && typeof expected[field] === 'string') summary[field] = (summary[field] as string).slice(0, (expected[field] as string).length);
  }
  if (typeof summary.signature === 'string') summary.signature = decodeReasoningSignature(summary.signature)?.namespace;
  return summary;
}

/** Event payloads without the per-call ids (the message's; Gemini's tool calls, which the AI SDK generates). */
function comparable(events: RawSseEvent[]): string[] {
  return events.map((event) => event.data.replace(/"id":"msg_[0-9a-f]+"/, '"id":"msg"').replace(/"type":"tool_use","id":"[^"]+"/, '"type":"tool_use","id":"call"'));
}

let fake: FakeUpstream | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe.each(cases)('$family stream $fixture', (testCase) => {
  async function streamOnce(split?: { seed: number; maxChunkBytes: number }): Promise<RawSseEvent[]> {
    fake = await testCase.start();
    fake.enqueue(reply.fixture(`${testCase.fixture}.chunks.txt`, { ...(testCase.vendor ? { vendor: testCase.vendor } : {}), ...(split ? { split } : {}) }));
    const adapter = createAiSdkAdapter({ family: testCase.family });
    const stream = await adapter.stream(attemptCall({ family: testCase.family, baseUrl: fake.baseURL }));
    const { events, error } = await collectEvents(stream.events);
    await fake.close();
    fake = undefined;
    if (error) throw error;
    return events;
  }

  it('emits the exact event sequence and folds into the recorded answer', async () => {
    const events = await streamOnce();
    expect(collapseOutline(eventOutline(events))).toEqual(testCase.outline);
    const message = foldEvents(events);
    expect(message.content.map((block, index) => summarise(block as Record<string, unknown>, (testCase.content[index] ?? {}) as Record<string, unknown>))).toEqual(testCase.content);
    expect(message.stop_reason).toBe(testCase.stopReason);
    expect(message.usage).toEqual(testCase.usage);
  });

  it.each([1, 2, 3])('gives the same events with the body cut at random byte boundaries (seed %i)', async (seed) => {
    const whole = comparable(await streamOnce());
    const cut = comparable(await streamOnce({ seed, maxChunkBytes: 1 + seed * 5 }));
    expect(cut).toEqual(whole);
  });
});
