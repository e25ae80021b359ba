/**
 * Where system text lands per vendor family: the top-level `system` and a leading run of system messages are
 * the system prompt everywhere; a later system message is a system message at its position where the vendor
 * takes one (OpenAI Chat and Responses, Azure, OpenAI-compatible) and a framed user-turn text part there
 * where it does not (Gemini, Bedrock); one between tool calls and their results follows the results.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { frameSystemText } from '#src/providers/ai-sdk/convert-to-ai-sdk-system.ts';

const marker = { type: 'ephemeral' as const };

function promptOf(family: AiSdkFamily, fields: Record<string, unknown>) {
  const request = { model: 'vendor/model', max_tokens: 256, ...fields } as MessageRequest;
  return convertToAiSdkCallOptions({ request, profile: vendorProfile(family) }).value.prompt;
}

/** A conversation with a system message in every position a client can put one (its tool offered, so its tool blocks stay tool blocks on Bedrock). */
const conversation = {
  system: 'Top.',
  tools: [{ name: 'read', input_schema: { type: 'object' } }],
  messages: [
    { role: 'system', content: 'Lead.' },
    { role: 'user', content: 'Hi' },
    { role: 'system', content: [{ type: 'text', text: 'Mid.', cache_control: marker }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } }] },
    { role: 'system', content: 'Between.' },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file a' }, { type: 'text', text: 'Go on.' }] },
    { role: 'system', content: 'Last.' },
  ],
};

const toolCall = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read', input: { path: 'a' } }] };
const toolResult = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'read', output: { type: 'text', value: 'file a' } }] };
const userText = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
const system = (content: string) => ({ role: 'system', content });
const framed = (text: string, providerOptions?: object) => ({ role: 'user', content: [{ type: 'text', text: frameSystemText(text), ...(providerOptions ? { providerOptions } : {}) }] });

const inPlace = [system('Top.'), system('Lead.'), userText('Hi'), system('Mid.'), toolCall, toolResult, system('Between.'), userText('Go on.'), system('Last.')];

describe('system messages inside the conversation', () => {
  it.each([
    ['openai-chat', inPlace],
    ['openai-responses', inPlace],
    ['azure', inPlace],
    ['openai-compatible', inPlace],
    ['google', [system('Top.'), system('Lead.'), userText('Hi'), framed('Mid.'), toolCall, toolResult, framed('Between.'), userText('Go on.'), framed('Last.')]],
    [
      'bedrock',
      [system('Top.'), system('Lead.'), userText('Hi'), framed('Mid.', { bedrock: { cachePoint: { type: 'default' } } }), toolCall, toolResult, framed('Between.'), userText('Go on.'), framed('Last.')],
    ],
  ] as const)('reach %s in its documented form, in order', (family, expected) => {
    expect(promptOf(family, conversation)).toEqual(expected);
  });

  it('frames system text sent as a user part so the model reads it as an instruction', () => {
    expect(frameSystemText('Answer in French.')).toBe('<system-instruction>\nAnswer in French.\n</system-instruction>');
  });

  it.each(['openai-chat', 'google', 'bedrock'] as const)('keep one %s part per block and skip an empty system message', (family) => {
    const prompt = promptOf(family, {
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.' }] },
        { role: 'system', content: [] },
        { role: 'system' },
      ],
    });
    const later = family === 'openai-chat' ? [system('One.'), system('Two.')] : [{ role: 'user', content: [framed('One.').content[0], framed('Two.').content[0]] }];
    expect(prompt).toEqual([userText('Hi'), ...later]);
  });

  it('join the system prompt after the top-level system when they lead the conversation, on every vendor', () => {
    for (const family of ['google', 'bedrock', 'openai-chat'] as const) {
      const prompt = promptOf(family, { system: [{ type: 'text', text: 'Top.' }], messages: [{ role: 'system', content: 'Lead.' }, { role: 'user', content: 'Hi' }] });
      expect(prompt).toEqual([system('Top.'), system('Lead.'), userText('Hi')]);
    }
  });

  it('carry a cache marker of a leading system message as a Bedrock system cache point', () => {
    const prompt = promptOf('bedrock', { messages: [{ role: 'system', content: [{ type: 'text', text: 'Lead.', cache_control: marker }] }, { role: 'user', content: 'Hi' }] });
    expect(prompt[0]).toEqual({ role: 'system', content: 'Lead.', providerOptions: { bedrock: { cachePoint: { type: 'default' } } } });
  });

  it('take the automatic breakpoint of a top-level cache_control when they end the conversation', () => {
    const prompt = promptOf('bedrock', { cache_control: marker, messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Last.' }] });
    expect(prompt.at(-1)).toEqual(framed('Last.', { bedrock: { cachePoint: { type: 'default' } } }));
  });

  it.each([
    ['a non-text block', { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_definition' } }] }, 'tool_addition blocks in system content (messages[1].content[0])'],
    ['a property the translators do not read', { role: 'system', content: 'Brief.', clear_at: 'next_user_message' }, 'messages[1].clear_at'],
  ])('answer %s with an UnsupportedFeatureError naming it', (_name, message, named) => {
    const convert = () => promptOf('openai-chat', { messages: [{ role: 'user', content: 'Hi' }, message] });
    expect(convert).toThrow(UnsupportedFeatureError);
    expect(convert).toThrow(`Invalid request parameters: ${named} is not supported by OpenAI Chat Completions`);
  });
});
