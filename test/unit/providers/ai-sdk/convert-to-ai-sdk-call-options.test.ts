/**
 * convertToAiSdkCallOptions on the prompt: a full tool round trip per vendor, cache breakpoints (top-level,
 * explicit, inside tool results) and their limit, tool results, and tool-call signatures. Reasoning, output
 * and speed controls are in convert-to-ai-sdk-call-options-controls.test.ts; what a vendor cannot express in
 * convert-to-ai-sdk-call-options-refusals.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { encodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';

function convert(family: AiSdkFamily, request: Partial<MessageRequest>) {
  return convertToAiSdkCallOptions({
    request: { model: 'vendor/model', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], ...request },
    profile: vendorProfile(family),
  });
}

const bedrockSignature = encodeReasoningSignature({ namespace: 'bedrock', metadata: { signature: 'sig-bedrock' } });
const openAiSignature = encodeReasoningSignature({ namespace: 'openai', metadata: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } });

/** A tool round trip with every kind of block the translator maps. */
const roundTrip: Partial<MessageRequest> = {
  system: [
    { type: 'text', text: 'You are terse.' },
    { type: 'text', text: 'Use tools.', cache_control: { type: 'ephemeral' } },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'report.pdf' },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain notes' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look it up.', signature: bedrockSignature },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { query: 'x' } as never },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'found' }], cache_control: { type: 'ephemeral', ttl: '1h' } },
        { type: 'text', text: 'Summarise.' },
      ],
    },
  ],
  tools: [{ name: 'lookup', description: 'Looks things up', input_schema: { type: 'object', properties: { query: { type: 'string' } } } as never }],
  tool_choice: { type: 'any' },
  stop_sequences: ['END'],
  temperature: 0.2,
  top_p: 0.9,
  top_k: 40,
};

describe('convertToAiSdkCallOptions', () => {
  it('maps a full tool round trip for Bedrock, with cache points and the Bedrock signature attached', () => {
    const { value, warnings } = convert('bedrock', roundTrip);
    expect(value).toEqual({
      prompt: [
        { role: 'system', content: 'You are terse.' },
        { role: 'system', content: 'Use tools.', providerOptions: { bedrock: { cachePoint: { type: 'default' } } } },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
            { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: PDF }, filename: 'report.pdf' },
            { type: 'text', text: 'plain notes' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Look it up.', providerOptions: { bedrock: { signature: 'sig-bedrock' } } },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'lookup', input: { query: 'x' } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'toolu_1',
              toolName: 'lookup',
              output: { type: 'text', value: 'found' },
              providerOptions: { bedrock: { cachePoint: { type: 'default', ttl: '1h' } } },
            },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Summarise.' }] },
      ],
      maxOutputTokens: 512,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      tools: [{ type: 'function', name: 'lookup', description: 'Looks things up', inputSchema: { type: 'object', properties: { query: { type: 'string' } } } }],
      toolChoice: { type: 'required' },
    });
    expect(warnings).toEqual([]);
  });

  it('drops cache markers with a warning and replays only its own signatures on OpenAI Responses', () => {
    const { value, warnings } = convert('openai-responses', {
      ...roundTrip,
      stop_sequences: [],
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'mine', signature: openAiSignature },
            { type: 'thinking', thinking: 'foreign', signature: bedrockSignature },
            { type: 'thinking', thinking: 'anthropic', signature: 'EqQBCkgIAhABGAIiQ' },
            { type: 'text', text: 'Hello' },
          ],
        },
      ],
    });
    expect(value.prompt[1]).toEqual({ role: 'system', content: 'Use tools.' });
    expect(value.prompt[3]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'mine', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } } },
        { type: 'reasoning', text: 'foreign' },
        { type: 'reasoning', text: 'anthropic' },
        { type: 'text', text: 'Hello' },
      ],
    });
    expect(value.providerOptions).toEqual({ openai: { store: false } });
    expect(warnings).toEqual(['cache_control dropped: OpenAI Responses caches prompts automatically, without breakpoints']);
  });

  it('places the top-level cache_control on the last cacheable block', () => {
    const { value } = convert('bedrock', {
      cache_control: { type: 'ephemeral' },
      messages: [
        { role: 'user', content: 'First' },
        { role: 'assistant', content: 'Answer' },
        { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      ],
    });
    expect(value.prompt.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b', providerOptions: { bedrock: { cachePoint: { type: 'default' } } } }],
    });
  });

  it('rejects a top-level marker with no breakpoint left for it, and five explicit ones, as Anthropic does', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const four = { role: 'user' as const, content: [marked('1'), marked('2'), marked('3'), marked('4'), { type: 'text' as const, text: 'tail' }] };
    expect(() => convert('bedrock', { cache_control: { type: 'ephemeral' }, messages: [four] })).toThrow(
      "Invalid request parameters: the top-level cache_control needs a cache breakpoint of its own, and the request's 4 cache_control markers take all 4",
    );
    expect(() => convert('bedrock', { messages: [{ role: 'user', content: [...four.content, marked('5')] }] })).toThrow(
      'Invalid request parameters: at most 4 blocks may carry cache_control, found 5',
    );
  });

  it('keeps the files of an is_error tool result, as content opened by the error note', () => {
    const { value, warnings } = convert('openai-responses', {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} as never }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] },
      ],
    });
    expect(value.prompt[1]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't1',
          toolName: 'shot',
          output: { type: 'content', value: [{ type: 'text', text: '[The tool reported an error.]' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AAAA' } }] },
        },
      ],
    });
    expect(warnings).toEqual([]);
  });

  it('turns is_error tool results into error text and rich results into content', () => {
    const { value } = convert('openai-responses', {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'shot', input: {} as never }, { type: 'tool_use', id: 't2', name: 'shot', input: {} as never }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'timed out' },
            { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] },
          ],
        },
      ],
    });
    expect(value.prompt[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 't1', toolName: 'shot', output: { type: 'error-text', value: 'timed out' } },
        {
          type: 'tool-result',
          toolCallId: 't2',
          toolName: 'shot',
          output: { type: 'content', value: [{ type: 'text', text: 'see' }, { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL('https://example.com/a.png') } }] },
        },
      ],
    });
  });

});

describe('cache breakpoints inside tool results', () => {
  it('count toward the limit and anchor on the enclosing tool_result', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const history = { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'f', input: {} as never }] };
    const result = { type: 'tool_result' as const, tool_use_id: 't1', content: [marked('a'), marked('b')] };
    // The tool offered: without active tools, Converse takes tool blocks only as text (no cache point inside).
    const tools = [{ name: 'f', input_schema: { type: 'object' } as never }];
    const { value } = convert('bedrock', { tools, messages: [{ role: 'user', content: 'go' }, history, { role: 'user', content: [result] }] });
    expect(value.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'f', output: { type: 'text', value: 'a\nb' }, providerOptions: { bedrock: { cachePoint: { type: 'default' } } } }],
    });
    const crowded = { role: 'user' as const, content: [result, marked('c'), marked('d'), marked('e')] };
    expect(() => convert('bedrock', { tools, messages: [{ role: 'user', content: 'go' }, history, crowded] })).toThrow('at most 4 blocks may carry cache_control, found 5');
  });
});

describe('tool-call signatures', () => {
  const carrier = (namespace: string) => ({
    type: 'thinking' as const,
    thinking: '',
    signature: encodeReasoningSignature({ namespace, metadata: { thoughtSignature: 'g-sig' }, target: 'tool_use' }),
  });
  const turn = (namespace: string): Partial<MessageRequest> => ({
    tools: [{ name: 'f', input_schema: { type: 'object' } as never }],
    messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [carrier(namespace), { type: 'tool_use', id: 't1', name: 'f', input: {} as never }] }],
  });

  it('attach to the next tool call on the vendor that made them, and vanish elsewhere', () => {
    expect(convert('google', turn('google')).value.prompt[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'f', input: {}, providerOptions: { google: { thoughtSignature: 'g-sig' } } }],
    });
    expect(convert('bedrock', turn('google')).value.prompt[1]).toEqual({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'f', input: {} }] });
  });
});
