/**
 * Recorded non-streaming answers of every AI SDK family, served by fake vendor servers over real HTTP and
 * read by the real provider packages, compared whole with the Anthropic message the adapter returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageResponse } from '#src/api-types.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { encodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import {
  readFixture,
  reply,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeUpstream,
  type FixtureVendor,
} from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall } from '#test/integration/providers/ai-sdk-test-support.ts';

type ChatBody = { choices: Array<{ message: { content: string; reasoning_content?: string } }> };
type GeminiBody = { candidates: Array<{ content: { parts: Array<{ text?: string; thoughtSignature?: string }> } }> };
type BedrockBody = { output: { message: { content: Array<{ text?: string; reasoningContent?: { reasoningText: { text: string; signature: string } } }> } } };
type ResponsesBody = { output: Array<{ type: string; id: string; encrypted_content?: string; summary?: Array<{ text: string }>; content?: Array<{ text: string }> }> };

const chatText = (vendor: FixtureVendor, name: string) => readFixture<ChatBody>(vendor, name).choices[0]?.message;
const usage = (input: number, output: number, extra: Partial<MessageResponse['usage']> = {}) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  service_tier: 'standard',
  ...extra,
});

const googleToolCall = readFixture<GeminiBody>('google', 'google-tool-call');
const bedrockReasoning = readFixture<BedrockBody>('amazon-bedrock', 'amazon-bedrock-reasoning').output.message.content;
const responsesReasoning = readFixture<ResponsesBody>('openai-responses', 'openai-reasoning-encrypted-content.1').output;

const cases: Array<{ family: AiSdkFamily; start: () => Promise<FakeUpstream>; fixture: string; vendor?: FixtureVendor; expected: Record<string, unknown> }> = [
  {
    family: 'openai-chat',
    start: () => startFakeOpenAiChat(),
    fixture: 'openai-text',
    expected: {
      model: 'gpt-4.1-nano-2025-04-14',
      content: [{ type: 'text', text: chatText('openai-chat', 'openai-text')?.content ?? '' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(16, 363, { output_tokens_details: { thinking_tokens: 0 } }),
    },
  },
  {
    family: 'azure',
    start: () => startFakeOpenAiChat(),
    fixture: 'openai-text',
    expected: {
      model: 'gpt-4.1-nano-2025-04-14',
      content: [{ type: 'text', text: chatText('openai-chat', 'openai-text')?.content ?? '' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(16, 363, { output_tokens_details: { thinking_tokens: 0 } }),
    },
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    fixture: 'deepseek-tool-call',
    vendor: 'deepseek-chat',
    expected: {
      model: 'deepseek-reasoner',
      content: [
        { type: 'thinking', thinking: chatText('deepseek-chat', 'deepseek-tool-call')?.reasoning_content ?? '', signature: encodeReasoningSignature({ namespace: 'openaiCompatible', metadata: {} }) },
        { type: 'tool_use', id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', name: 'weather', input: { location: 'San Francisco' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: usage(19, 92, { cache_read_input_tokens: 320, output_tokens_details: { thinking_tokens: 48 } }),
    },
  },
  {
    family: 'google',
    start: () => startFakeGemini(),
    fixture: 'google-text',
    expected: {
      content: [{ type: 'text', text: readFixture<GeminiBody>('google', 'google-text').candidates[0]?.content.parts[0]?.text ?? '' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(9, 272, { output_tokens_details: { thinking_tokens: 244 } }),
    },
  },
  {
    family: 'google',
    start: () => startFakeGemini(),
    fixture: 'google-tool-call',
    expected: {
      content: [
        {
          type: 'thinking',
          thinking: '',
          signature: encodeReasoningSignature({ namespace: 'google', metadata: { thoughtSignature: googleToolCall.candidates[0]?.content.parts[0]?.thoughtSignature ?? '' }, target: 'tool_use' }),
        },
        { type: 'tool_use', id: expect.any(String) as never, name: 'weather', input: { location: 'San Francisco' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: usage(29, 908, { output_tokens_details: { thinking_tokens: 893 } }),
    },
  },
  {
    family: 'bedrock',
    start: () => startFakeBedrock(),
    fixture: 'amazon-bedrock-reasoning',
    expected: {
      content: [
        {
          type: 'thinking',
          thinking: bedrockReasoning[0]?.reasoningContent?.reasoningText.text ?? '',
          signature: encodeReasoningSignature({ namespace: 'bedrock', metadata: { signature: bedrockReasoning[0]?.reasoningContent?.reasoningText.signature ?? '' } }),
        },
        { type: 'text', text: bedrockReasoning[1]?.text ?? '' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(51, 78),
    },
  },
  {
    family: 'bedrock',
    start: () => startFakeBedrock(),
    fixture: 'amazon-bedrock-tool-call.1',
    expected: {
      content: [{ type: 'tool_use', id: 'tool-use-id', name: 'bash', input: { command: 'ls -l' } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: usage(10, 20),
    },
  },
  {
    family: 'openai-responses',
    start: () => startFakeOpenAiResponses(),
    fixture: 'openai-reasoning-encrypted-content.1',
    expected: {
      model: 'gpt-5-mini-2025-08-07',
      content: [
        {
          type: 'thinking',
          thinking: responsesReasoning[0]?.summary?.map((part) => part.text).join('') ?? '',
          signature: encodeReasoningSignature({ namespace: 'openai', metadata: { itemId: responsesReasoning[0]?.id ?? '', reasoningEncryptedContent: responsesReasoning[0]?.encrypted_content ?? '' } }),
        },
        { type: 'text', text: responsesReasoning[1]?.content?.[0]?.text ?? '' },
      ],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(865, 163, { output_tokens_details: { thinking_tokens: 128 } }),
    },
  },
];

let fake: FakeUpstream | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

// An answer's `model` is the one the vendor's body named (the recording's), else the vendor id asked for.
describe('AI SDK adapters, non-streaming recordings', () => {
  it.each(cases)('$family $fixture', async ({ family, start, fixture, vendor, expected }) => {
    fake = await start();
    fake.enqueue(reply.fixture(`${fixture}.json`, vendor ? { vendor } : {}));
    const adapter = createAiSdkAdapter({ family });
    const { message, warnings } = await adapter.generate(attemptCall({ family, baseUrl: fake.baseURL, upstreamModel: 'vendor-model-1' }));
    expect(message).toEqual({ id: expect.stringMatching(/^msg_[0-9a-f]{32}$/), type: 'message', role: 'assistant', model: 'vendor-model-1', ...expected });
    expect(warnings).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });
});
