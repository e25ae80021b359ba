/**
 * OpenRouter's `reasoning_details` in a tool loop, end to end through the gateway with the official Anthropic
 * SDK against a fake OpenRouter speaking its Chat Completions format. Reasoning models behind OpenRouter
 * (Claude with signed thinking, Gemini with thought signatures, OpenAI with encrypted reasoning) need the
 * typed items of their last answer back, unchanged and in order, on the assistant message of the next request,
 * or they lose their reasoning state (Claude and Gemini refuse the turn). The client holds them only as the
 * gateway hands them out: in a thinking block's signature. Before, the items were dropped: the second request
 * carried the reasoning text at most, and encrypted-only reasoning vanished.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { openAiChatStep, reply, type FakeReply } from '#test/helpers/fake-upstreams/index.ts';
import { startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/openrouter-reasoner';
const e2e = useE2eTarget({
  startUpstream: () => startFakeOpenAiChat(),
  providerYaml: (fake) => `  openrouter: { base_url: "${fake.baseURL}", api_key: "sk-or-v1-details-0001" }`,
  model: { slug: MODEL, provider: 'openrouter', upstreamModel: 'google/gemini-3-pro-preview', pricing: '{ input: 2, output: 12 }' },
});

type Detail = Record<string, unknown>;
type ChatMessage = { role: string; content?: unknown; reasoning?: string; reasoning_details?: Detail[]; tool_calls?: Array<{ id: string }> };

const question = { role: 'user' as const, content: 'What is the weather in Paris?' };
const usage = { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160, completion_tokens_details: { reasoning_tokens: 25 } };
const base = { id: 'gen-or-1', created: 1767225600, model: 'google/gemini-3-pro-preview', provider: 'Google' };
const call = { id: 'tool_weather_0', type: 'function', function: { name: 'weather', arguments: '{"location":"Paris"}' } };
const THOUGHT = 'The user wants the weather; I will call the tool.';

/** An OpenRouter JSON answer: reasoning text, its typed items, and a tool call. */
function jsonAnswer(details: Detail[], reasoning: string | null): FakeReply {
  return reply.json({
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: '', reasoning, reasoning_details: details, tool_calls: [call] }, finish_reason: 'tool_calls', native_finish_reason: 'STOP' }],
    usage,
  });
}

/** An OpenRouter stream: each delta as given, then the tool call (with `withCall` in its first chunk), the finish and the usage chunk. */
function streamedAnswer(deltas: Array<Record<string, unknown>>, withCall: Record<string, unknown> = {}): FakeReply {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  return reply.events([
    chunk({ role: 'assistant', content: '' }),
    ...deltas.map((delta) => chunk(delta)),
    chunk({ ...withCall, tool_calls: [{ index: 0, ...call, function: { name: 'weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] }),
    chunk({}, 'tool_calls'),
    { ...base, object: 'chat.completion.chunk', choices: [], usage },
  ]);
}

/** Asks, runs the tool, answers with the result, and returns the gateway's first answer and the second request as OpenRouter got it. */
async function toolLoop(first: FakeReply, stream: boolean): Promise<{ answer: Anthropic.Message; sent: { messages: ChatMessage[] }; raw: string }> {
  e2e.upstream.clear();
  e2e.upstream.enqueue(first, openAiChatStep({ text: 'Sunny, 21°C.', usage: { input: 200, output: 6 } }));
  const ask = { model: MODEL, max_tokens: 2048, tools: [WEATHER_TOOL], messages: [question] };
  const answer = stream ? await e2e.client.messages.stream(ask).finalMessage() : await e2e.client.messages.create(ask);
  const toolUse = answer.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
  const final = await e2e.client.messages.create({
    ...ask,
    messages: [question, { role: 'assistant', content: answer.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'Sunny, 21°C' }] }],
  });
  expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny, 21°C.' })]);
  const second = e2e.upstream.requests[1];
  return { answer, sent: second?.body as { messages: ChatMessage[] }, raw: String(second?.rawBody) };
}

const assistantOf = (sent: { messages: ChatMessage[] }) => sent.messages.find((message) => message.role === 'assistant');

describe('OpenRouter reasoning_details in a tool loop', () => {
  it('hands back a JSON answer\'s items (reasoning text and a Gemini thought signature) unchanged', async () => {
    const details = [
      { type: 'reasoning.text', text: THOUGHT, format: 'google-gemini-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'CiQB4/H/XsukhAuGPtUM2Ce9Y0dPYTHBvBWvEEIvTQ==', id: 'tool_weather_0', format: 'google-gemini-v1', index: 1 },
    ];
    const { answer, sent, raw } = await toolLoop(jsonAnswer(details, THOUGHT), false);

    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(answer.content[0]).toMatchObject({ thinking: THOUGHT, signature: expect.stringMatching(/^sbsig1_/) });
    expect(assistantOf(sent)).toEqual({ role: 'assistant', content: null, reasoning: THOUGHT, reasoning_details: details, tool_calls: [expect.objectContaining({ id: 'tool_weather_0' })] });
    // The bytes OpenRouter reads: the items exactly as it sent them.
    expect(raw).toContain(`"reasoning_details":${JSON.stringify(details)}`);
  });

  it('hands back a stream\'s items merged as OpenRouter streams them (Claude\'s thinking, then its signature)', async () => {
    const pieces = ['The user wants the weather; ', 'I will call the tool.'];
    const signature = 'ErUBCkYIBxgCIkB3mQ3+signature+of+the+thinking==';
    const { answer, sent, raw } = await toolLoop(
      streamedAnswer([
        ...pieces.map((text) => ({ reasoning: text, reasoning_details: [{ type: 'reasoning.text', text, format: 'anthropic-claude-v1', index: 0 }] })),
        { reasoning: '', reasoning_details: [{ type: 'reasoning.text', text: '', signature, format: 'anthropic-claude-v1', index: 0 }] },
      ]),
      true,
    );

    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(answer.content[0]).toMatchObject({ thinking: THOUGHT, signature: expect.stringMatching(/^sbsig1_/) });
    const merged = [{ type: 'reasoning.text', text: THOUGHT, format: 'anthropic-claude-v1', index: 0, signature }];
    expect(assistantOf(sent)).toMatchObject({ reasoning: THOUGHT, reasoning_details: merged });
    expect(raw).toContain(`"reasoning_details":${JSON.stringify(merged)}`);
  });

  it('hands back a stream\'s Gemini thought signature that comes with the call, after the reasoning text', async () => {
    const thought = { type: 'reasoning.text', text: THOUGHT, format: 'google-gemini-v1', index: 0 };
    const signature = { type: 'reasoning.encrypted', data: 'CiQB4/H/XsukhAuGPtUM2Ce9Y0dPYTHBvBWvEEIvTQ==', id: 'tool_weather_0', format: 'google-gemini-v1', index: 1 };
    const { answer, sent } = await toolLoop(streamedAnswer([{ reasoning: THOUGHT, reasoning_details: [thought] }], { reasoning_details: [signature] }), true);

    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(assistantOf(sent)?.reasoning_details).toEqual([thought, signature]);
  });

  it.each([
    ['JSON', false],
    ['stream', true],
  ])('hands back encrypted-only reasoning (an OpenAI model), which has no text to show (%s)', async (_name, stream) => {
    const encrypted = { type: 'reasoning.encrypted', data: 'gAAAAABpF0encrypted0reasoning0item==', id: 'rs_0a1b2c', format: 'openai-responses-v1', index: 0 };
    const first = stream ? streamedAnswer([{ reasoning_details: [encrypted] }]) : jsonAnswer([encrypted], null);
    const { answer, sent, raw } = await toolLoop(first, stream);

    // The items ride an empty thinking block ahead of the call.
    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(answer.content[0]).toMatchObject({ thinking: '', signature: expect.stringMatching(/^sbsig1_/) });
    const assistant = assistantOf(sent);
    expect(assistant?.reasoning_details).toEqual([encrypted]);
    expect(assistant?.reasoning).toBeUndefined();
    expect(raw).toContain(`"reasoning_details":${JSON.stringify([encrypted])}`);
  });

  it('sends no reasoning_details where the conversation has none', async () => {
    const { sent } = await toolLoop(jsonAnswer([], null), false);
    expect(assistantOf(sent)).not.toHaveProperty('reasoning_details');
  });
});
