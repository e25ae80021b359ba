import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError, UnsupportedFeatureError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions, safetyIdentifier } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
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

  it.each([
    ['openai-chat', { thinking: { type: 'enabled', budget_tokens: 2048 } }, { reasoning: 'low' }],
    ['openai-chat', { thinking: { type: 'enabled', budget_tokens: 10_000 } }, { reasoning: 'medium' }],
    ['openai-responses', { thinking: { type: 'enabled', budget_tokens: 32_000 } }, { reasoning: 'high', providerOptions: { openai: { store: false } } }],
    ['openai-chat', { output_config: { effort: 'xhigh' } }, { reasoning: 'xhigh' }],
    ['openai-chat', { thinking: { type: 'disabled' } }, { reasoning: 'none' }],
    ['openai-compatible', { output_config: { effort: 'low' } }, { reasoning: 'low' }],
    ['openai-compatible', { thinking: { type: 'disabled' } }, {}],
    ['google', { thinking: { type: 'enabled', budget_tokens: 4096 } }, { providerOptions: { google: { thinkingConfig: { thinkingBudget: 4096, includeThoughts: true } } } }],
    ['google', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } }],
    ['google', { thinking: { type: 'disabled' } }, { reasoning: 'none' }],
    ['bedrock', { thinking: { type: 'enabled', budget_tokens: 2000 } }, { providerOptions: { bedrock: { reasoningConfig: { type: 'enabled', budgetTokens: 2000 } } } }],
    ['bedrock', { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }, { providerOptions: { bedrock: { reasoningConfig: { type: 'adaptive', maxReasoningEffort: 'max' } } } }],
    ['bedrock', { output_config: { effort: 'medium' } }, { reasoning: 'medium' }],
  ] as const)('maps reasoning controls for %s: %j', (family, request, expected) => {
    const { value } = convert(family, request as Partial<MessageRequest>);
    expect({ reasoning: value.reasoning, providerOptions: value.providerOptions }).toEqual({ reasoning: undefined, providerOptions: undefined, ...expected });
  });

  it('maps structured output, tool choice variants and parallel tool use', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const { value } = convert('openai-chat', {
      output_config: { format: { type: 'json_schema', schema: schema as never } },
      tools: [{ name: 'a', input_schema: { type: 'object' } as never }],
      tool_choice: { type: 'tool', name: 'a', disable_parallel_tool_use: true },
      metadata: { user_id: 'end-user-7' },
    });
    expect(value.responseFormat).toEqual({ type: 'json', schema, name: 'response' });
    expect(value.toolChoice).toEqual({ type: 'tool', toolName: 'a' });
    expect(value.providerOptions).toEqual({ openai: { parallelToolCalls: false, safetyIdentifier: safetyIdentifier('end-user-7') } });
    expect(convert('openai-compatible', { tools: [{ name: 'a', input_schema: {} as never }], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }).value.providerOptions).toEqual({
      openaiCompatible: { parallel_tool_calls: false },
    });
    expect(convert('openai-chat', { tool_choice: { type: 'none' }, tools: [{ name: 'a', input_schema: {} as never }] }).value.toolChoice).toEqual({ type: 'none' });
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

  it.each([
    ['openai-chat', { tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tool type web_search_20250305 (an Anthropic tool) is not supported by OpenAI Chat Completions'],
    ['bedrock', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] }, 'image URL sources (send the image as base64) is not supported by Amazon Bedrock'],
    ['openai-chat', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }] }, 'PDF URL sources (send the PDF as base64) is not supported by OpenAI Chat Completions'],
    ['google', { messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }] }, 'server_tool_use blocks in assistant messages (messages[0].content[0]) is not supported by Google Gemini'],
  ] as const)('rejects what %s cannot express with an UnsupportedFeatureError naming it', (family, request, reason) => {
    let error: unknown;
    try {
      convert(family, request as unknown as Partial<MessageRequest>);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as BadRequestError).publicMessage).toBe(`Invalid request parameters: ${reason}`);
  });

  it('answers a client mistake with a plain 400, which no other endpoint would accept either', () => {
    let error: unknown;
    try {
      convert('google', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nowhere', content: 'x' }] }] });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(UnsupportedFeatureError);
    expect((error as BadRequestError).publicMessage).toBe('Invalid request parameters: tool_result nowhere does not answer a tool_use of an earlier assistant turn');
  });

  it('skips gateway tools and drops Anthropic-only fields with warnings, never silently', () => {
    const { value, warnings } = convert('google', {
      tools: [{ type: 'gateway:web_fetch' }, { name: 'a', input_schema: {} as never, cache_control: { type: 'ephemeral' } }],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      messages: [
        { role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, context: 'ctx', citations: { enabled: true } }] },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 'ok' }] },
      ],
    });
    expect(value.tools).toEqual([{ type: 'function', name: 'a', inputSchema: {} }]);
    expect(value.prompt[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    expect(warnings).toEqual([
      'context_management dropped: Anthropic context editing has no counterpart',
      'messages[0].content[0].context dropped: document context is Anthropic’s',
      'messages[0].content[0].citations dropped: citations are Anthropic’s',
      'redacted_thinking block dropped: it was not produced by Google Gemini',
      'gateway tool gateway:web_fetch not sent upstream: it is run by the gateway',
      'cache_control on tool a dropped: Google Gemini has no tool cache breakpoints',
    ]);
  });
});

describe('cache breakpoints inside tool results', () => {
  it('count toward the limit and anchor on the enclosing tool_result', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const history = { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'f', input: {} as never }] };
    const result = { type: 'tool_result' as const, tool_use_id: 't1', content: [marked('a'), marked('b')] };
    const { value } = convert('bedrock', { messages: [{ role: 'user', content: 'go' }, history, { role: 'user', content: [result] }] });
    expect(value.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'f', output: { type: 'text', value: 'a\nb' }, providerOptions: { bedrock: { cachePoint: { type: 'default' } } } }],
    });
    const crowded = { role: 'user' as const, content: [result, marked('c'), marked('d'), marked('e')] };
    expect(() => convert('bedrock', { messages: [{ role: 'user', content: 'go' }, history, crowded] })).toThrow('at most 4 blocks may carry cache_control, found 5');
  });
});

describe('tool-call signatures', () => {
  const carrier = (namespace: string) => ({
    type: 'thinking' as const,
    thinking: '',
    signature: encodeReasoningSignature({ namespace, metadata: { thoughtSignature: 'g-sig' }, target: 'tool_use' }),
  });
  const turn = (namespace: string): Partial<MessageRequest> => ({
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

describe('speed: fast', () => {
  const request: MessageRequest = { model: 'openai/gpt-5', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }] };

  it.each([['openai-chat'], ['openai-responses'], ['azure']] as const)('asks %s for priority processing', (family) => {
    const { value } = convertToAiSdkCallOptions({ request, profile: vendorProfile(family), fast: true });
    const namespace = vendorProfile(family).namespace;
    expect(value.providerOptions?.[namespace]).toMatchObject({ serviceTier: 'priority' });
  });

  it('changes nothing at standard speed or for vendors without a priority tier', () => {
    expect(convertToAiSdkCallOptions({ request, profile: vendorProfile('openai-chat') }).value.providerOptions?.openai).toBeUndefined();
    const google = convertToAiSdkCallOptions({ request, profile: vendorProfile('google'), fast: true }).value;
    expect(JSON.stringify(google.providerOptions ?? {})).not.toContain('priority');
  });
});
