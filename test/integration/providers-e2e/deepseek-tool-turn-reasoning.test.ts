/**
 * DeepSeek reasons unasked (its reasoner, and its current models in their default thinking mode) and wants that
 * reasoning back: every assistant message of a turn that called tools must carry `reasoning_content` in every
 * later request, or it answers 400 (the fake DeepSeek refuses it too). Through the gateway with the official
 * Anthropic SDK and no `thinking` enabled:
 * - the reasoning reaches the client as a `thinking` block beside the `tool_use` (kept, since it must come back),
 *   and handed back it reaches DeepSeek as `reasoning_content`;
 * - a client that hands back no thinking (one that drops blocks it did not ask for, or a conversation that
 *   reached DeepSeek from another vendor) is answered too: the tool-calling turn goes with `reasoning_content`
 *   empty, which DeepSeek accepts. Before, the AI SDK left the field out and the request was a 400.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/deepseek-thinking';
const e2e = useE2eTarget({
  startUpstream: () => startFakeOpenAiChat({ deepseekThinking: true }),
  providerYaml: (fake) => `  deepseek: { base_url: "${fake.baseURL}", api_key: "sk-deepseek-toolturn-0001" }`,
  model: { slug: MODEL, provider: 'deepseek', upstreamModel: 'deepseek-reasoner', pricing: '{ input: 0.28, output: 0.42 }' },
});

const THOUGHT = 'The user wants the weather; I should call the tool.';
const question = { role: 'user' as const, content: 'What is the weather in Paris?' };
const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, completion_tokens_details: { reasoning_tokens: 12 } };
// DeepSeek's answer: its reasoning, then a call, in one assistant message.
const thinkThenCall = reply.json({
  id: 'chatcmpl-ds-1',
  object: 'chat.completion',
  created: 1767225600,
  model: 'deepseek-reasoner',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: '', reasoning_content: THOUGHT, tool_calls: [{ id: 'call_ds_weather', type: 'function', function: { name: 'weather', arguments: '{"location":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    },
  ],
  usage,
});

type ChatMessage = { role: string; reasoning_content?: string; tool_calls?: unknown[] };
const sentAssistants = () => ((e2e.upstream.lastRequest().body as { messages: ChatMessage[] }).messages ?? []).filter((message) => message.role === 'assistant');

describe('DeepSeek reasoning nobody asked for, in a tool-calling turn', () => {
  it('reaches the client as a thinking block, and handed back reaches DeepSeek as reasoning_content', async () => {
    e2e.upstream.enqueue(thinkThenCall, openAiChatStep({ text: 'Sunny, 21°C.', usage: { input: 180, output: 6 } }));
    const first = await e2e.client.messages.create({ model: MODEL, max_tokens: 1024, tools: [WEATHER_TOOL], messages: [question] });
    expect(first.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(first.content[0]).toMatchObject({ type: 'thinking', thinking: THOUGHT });
    const call = first.content[1] as Anthropic.ToolUseBlock;

    const second = await e2e.client.messages.create({
      model: MODEL,
      max_tokens: 1024,
      tools: [WEATHER_TOOL],
      messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 21°C' }] }],
    });
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny, 21°C.' })]);
    expect(sentAssistants()).toEqual([expect.objectContaining({ reasoning_content: THOUGHT, tool_calls: [expect.anything()] })]);
  });

  it.each([
    ['JSON', false],
    ['stream', true],
  ])('is answered (%s) when the client hands back the call without its thinking: reasoning_content goes empty', async (_name, stream) => {
    e2e.upstream.enqueue(openAiChatStep({ text: 'Sunny, 21°C.', usage: { input: 180, output: 6 } }));
    const body = {
      model: MODEL,
      max_tokens: 1024,
      tools: [WEATHER_TOOL],
      messages: [
        question,
        { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_from_elsewhere', name: 'weather', input: { location: 'Paris' } }] },
        { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_from_elsewhere', content: 'Sunny, 21°C' }] },
      ],
    };
    const message = stream ? await e2e.client.messages.stream(body).finalMessage() : await e2e.client.messages.create(body);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny, 21°C.' })]);
    expect(sentAssistants()).toEqual([expect.objectContaining({ reasoning_content: '', tool_calls: [expect.anything()] })]);
  });

  it('leaves a turn without tool calls alone', async () => {
    e2e.upstream.enqueue(openAiChatStep({ text: 'Bonjour.', usage: { input: 40, output: 3 } }));
    await e2e.client.messages.create({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'In French?' }] });
    expect(sentAssistants()).toEqual([{ role: 'assistant', content: 'Hello.' }]);
  });
});
