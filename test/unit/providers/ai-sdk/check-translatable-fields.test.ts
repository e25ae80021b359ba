/**
 * The forward-compatibility rule, value by value: what Anthropic may add passes the spec and reaches an
 * Anthropic-format upstream unchanged, while a translated vendor answers an `UnsupportedFeatureError` naming
 * it, or drops a harmless hint with a warning.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { ThreadUnsupportedError } from '#src/thread-errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { convertToAnthropicBody } from '#src/providers/anthropic/convert-to-anthropic-body.ts';
import { messageRequestErrors } from '#test/helpers/request-schema.ts';

const PNG = 'iVBORw0KGgo=';
const hello = { role: 'user', content: 'Hi' };
const tool = { name: 'read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };

function body(fields: Record<string, unknown>): MessageRequest {
  return { model: 'vendor/model', max_tokens: 256, messages: [hello], ...fields } as MessageRequest;
}

function translate(family: AiSdkFamily, request: MessageRequest) {
  return convertToAiSdkCallOptions({ request, profile: vendorProfile(family) });
}

function expectForwardedUnchanged(request: MessageRequest): void {
  const { model: _model, ...sent } = JSON.parse(convertToAnthropicBody(request, 'claude-up', false)) as Record<string, unknown>;
  const { model: _requested, ...original } = request as unknown as Record<string, unknown>;
  expect(sent).toEqual(original);
}

describe('values the translators do not know', () => {
  it.each([
    ['a new block type', { messages: [{ role: 'user', content: [{ type: 'future_block_20270101', payload: { x: 1 } }] }] }, 'future_block_20270101 blocks in user messages (messages[0].content[0])'],
    ['a new block type in an assistant turn', { messages: [hello, { role: 'assistant', content: [{ type: 'future_block_20270101' }] }] }, 'future_block_20270101 blocks in assistant messages (messages[1].content[0])'],
    ['a new block type inside a tool result', { messages: [hello, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'future_block_20270101' }] }] }] }, 'future_block_20270101 blocks in tool_result content'],
    ['a new top-level field', { future_parameter_20270101: { level: 3 } }, 'field future_parameter_20270101'],
    ['an Anthropic field no other vendor has', { mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'docs' }] }, 'field mcp_servers'],
    ['a code execution container', { container: 'container_011' }, 'field container'],
    ['an inference geography', { inference_geo: 'us' }, 'field inference_geo'],
    ['a message thread', { thread: { type: 'continue', previous_message_id: 'msg_011' } }, 'field thread'],
    ['a new thinking type', { thinking: { type: 'turbo_20270101' } }, 'thinking type turbo_20270101'],
    ['a new role', { messages: [hello, { role: 'critic_20270101', content: 'Be harsh.' }] }, 'role critic_20270101 (messages[1])'],
    ['a dated Anthropic tool', { tools: [{ type: 'memory_20250818', name: 'memory' }] }, 'tool type memory_20250818 (an Anthropic tool)'],
    ['an undated new tool type', { tools: [{ type: 'mcp_toolset', mcp_server_name: 'docs' }] }, 'tool type mcp_toolset (an Anthropic tool)'],
    ['a new tool_choice type', { tools: [tool], tool_choice: { type: 'auto_20270101' } }, 'tool_choice type auto_20270101'],
    ['a new effort', { output_config: { effort: 'ultra' } }, 'output_config.effort ultra'],
    ['a new service_tier', { service_tier: 'priority' }, 'service_tier priority'],
    ['a new image media type', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: PNG } }] }] }, 'image media_type image/bmp'],
    ['a new image source type', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_011' } }] }] }, 'image source type file'],
    ['a new document media type', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'text/csv', data: 'YSxi' } }] }] }, 'document media_type text/csv'],
    ['a new document source type', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: 'file_011' } }] }] }, 'document source type file'],
    ['a new output format', { output_config: { format: { type: 'regex', pattern: '^a$' } } }, 'output_config.format type regex'],
    ['a new property of thinking', { thinking: { type: 'enabled', budget_tokens: 2048, turbo: true } }, 'thinking.turbo'],
    ['a new property of a text block', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', priority: 'high' }] }] }, 'messages[0].content[0].priority'],
    ['a new property of a tool', { tools: [{ ...tool, cache_policy: 'pinned' }] }, 'tools[0].cache_policy'],
    ['a new property of output_config', { output_config: { effort: 'high', task_budget: { total: 10 } } }, 'output_config.task_budget'],
    ['a new effort on a system message', { messages: [hello, { role: 'system', content: [], output_config: { effort: 'ultra' } }] }, 'messages[1].output_config.effort ultra'],
    ['a new property of a system message output_config', { messages: [hello, { role: 'system', content: [], output_config: { effort: 'low', task_budget: { total: 10 } } }] }, 'messages[1].output_config.task_budget'],
    ['an output format on a system message', { messages: [hello, { role: 'system', content: 'Be brief.', output_config: { format: { type: 'json_schema', schema: {} } } }] }, 'messages[1].output_config.format'],
    ['a new property of tool_choice', { tools: [tool], tool_choice: { type: 'auto', max_calls: 2 } }, 'tool_choice.max_calls'],
    ['a new property of a message', { messages: [{ role: 'user', content: 'Hi', name: 'bob' }] }, 'messages[0].name'],
    ['a top-level field named like an Object method', { constructor: { name: 'x' } }, 'field constructor'],
    ['a block property named like an Object method', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', toString: 'x' }] }] }, 'messages[0].content[0].toString'],
    ['a new property of an image source', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG, detail: 'high' } }] }] }, 'messages[0].content[0].source.detail'],
  ])('%s passes the spec, reaches Anthropic unchanged and is a 400 naming it elsewhere', (_name, fields, named) => {
    const request = body(fields);
    expect(messageRequestErrors(request)).toEqual([]);
    expectForwardedUnchanged(request);
    for (const family of ['openai-chat', 'openai-responses', 'azure', 'openai-compatible', 'google', 'bedrock'] as const) {
      const convert = () => translate(family, request);
      expect(convert).toThrow(UnsupportedFeatureError);
      expect(convert).toThrow(`Invalid request parameters: ${named} is not supported by ${vendorProfile(family).label}`);
    }
  });
});

describe('thread', () => {
  it('is refused with Anthropic’s thread_unsupported_request code, created or continued', () => {
    for (const thread of [{ type: 'create' }, { type: 'continue', previous_message_id: 'msg_011' }]) {
      const refusal = (() => {
        try {
          translate('openai-chat', body({ thread }));
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refusal).toBeInstanceOf(ThreadUnsupportedError);
      expect((refusal as ThreadUnsupportedError).errorCode).toBe('thread_unsupported_request');
    }
  });
});

describe('URL sources', () => {
  const imageAt = (url: string) => body({ messages: [{ role: 'user', content: [{ type: 'text', text: 'See:' }, { type: 'image', source: { type: 'url', url } }] }] });

  it('passes any string to Anthropic; a vendor gets it as the WHATWG parser reads it', () => {
    const request = imageAt('https://example.com/my chart.png');
    expect(messageRequestErrors(request)).toEqual([]);
    expectForwardedUnchanged(request);
    const [message] = translate('openai-chat', request).value.prompt;
    expect(message?.content).toContainEqual(expect.objectContaining({ type: 'file', data: { type: 'url', url: new URL('https://example.com/my%20chart.png') } }));
  });

  it.each(['http://[', 'not a url'])('a string no parser reads (%j) is the client’s 400 on every vendor, without repeating it', (url) => {
    const request = imageAt(url);
    expect(messageRequestErrors(request)).toEqual([]);
    for (const family of ['openai-chat', 'openai-responses', 'azure', 'openai-compatible', 'google', 'bedrock'] as const) {
      const convert = () => translate(family, request);
      expect(convert).toThrow('Invalid request parameters: messages[0].content[1].source.url is not a valid URL');
      expect(convert).not.toThrow(UnsupportedFeatureError);
    }
  });

  it('refuses an empty URL at the spec', () => {
    expect(messageRequestErrors(imageAt(''))).toContain('/messages/0/content/1/source/url must NOT have fewer than 1 characters');
  });
});

describe('stop_sequences', () => {
  it('is a 400 naming it on OpenAI Responses, which has no stop sequences, and read everywhere else', () => {
    const request = body({ stop_sequences: ['END'] });
    expect(() => translate('openai-responses', request)).toThrow('Invalid request parameters: stop_sequences is not supported by OpenAI Responses');
    expect(translate('openai-responses', body({ stop_sequences: [] })).value.stopSequences).toBeUndefined();
    for (const family of ['openai-chat', 'azure', 'openai-compatible', 'google', 'bedrock'] as const) expect(translate(family, request).value.stopSequences).toEqual(['END']);
  });
});

describe('hints whose loss cannot change the answer', () => {
  it.each([
    ['thinking.display', { thinking: { type: 'enabled', budget_tokens: 2048, display: 'updates' } }, 'thinking.display dropped', 'thinking.display'],
    ['thinking.display on adaptive thinking', { thinking: { type: 'adaptive', display: 'summarized' } }, 'thinking.display dropped', 'thinking.display'],
    ['a deferred tool', { tools: [{ ...tool, defer_loading: true }] }, 'tools[0].defer_loading dropped: the tool is offered at once', 'tools[].defer_loading'],
    ['eager input streaming', { tools: [{ ...tool, eager_input_streaming: true }] }, 'tools[0].eager_input_streaming dropped', 'tools[].eager_input_streaming'],
    ['metadata beyond user_id', { metadata: { user_id: 'u-1', tenant: 'acme' } }, 'metadata.tenant dropped: only user_id is forwarded', 'metadata.tenant'],
    ['context_management', { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } }, 'context_management dropped', 'context_management'],
    ['cache diagnostics', { diagnostics: { previous_message_id: 'msg_011' } }, 'diagnostics dropped: Anthropic’s prompt-cache diagnostics have no counterpart', 'diagnostics'],
    ['a refusal’s cache credit', { fallback_credit_token: 'fct_011' }, 'fallback_credit_token dropped: a refusal’s cache credit is redeemable on Anthropic only', 'fallback_credit_token'],
    ['the caller of an earlier tool call', { messages: [hello, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {}, caller: { type: 'direct' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }], tools: [tool] }, 'messages[1].content[0].caller dropped', 'messages[].content[].caller'],
    ['citations of an earlier answer', { messages: [hello, { role: 'assistant', content: [{ type: 'text', text: 'Yes.', citations: [{ type: 'char_location', cited_text: 'y' }] }] }, hello] }, 'messages[1].content[0].citations dropped', 'messages[].content[].citations'],
  ])('%s reaches Anthropic unchanged and is dropped elsewhere with a warning, its path listed', (_name, fields, warning, path) => {
    const request = body(fields);
    expect(messageRequestErrors(request)).toEqual([]);
    expectForwardedUnchanged(request);
    const { warnings, dropped } = translate('openai-chat', request);
    expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining(warning)]));
    expect(dropped).toEqual([path]);
  });

  it.each([
    ['nothing dropped', 'openai-chat', {}, []],
    ['null fields ask for nothing', 'openai-chat', { diagnostics: null, context_management: null, metadata: { user_id: 'u-1', tenant: null } }, []],
    ['nor does the default geography', 'openai-chat', { inference_geo: 'global' }, []],
    ['sorted and each path once', 'openai-chat', { tools: [{ ...tool, defer_loading: true }, { ...tool, name: 'write', defer_loading: true }], diagnostics: { previous_message_id: 'msg_011' } }, ['diagnostics', 'tools[].defer_loading']],
    ['a metadata key that is no plain name', 'openai-chat', { metadata: { 'a, b': 1, 'kéy': 2, plain: 3 } }, ['metadata.*', 'metadata.plain']],
    ['parallel tool use on Gemini, which has no such switch', 'google', { tools: [tool], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }, ['tool_choice.disable_parallel_tool_use']],
    ['parallel tool use on OpenAI, which has one', 'openai-chat', { tools: [tool], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }, []],
    ['cache markers are not listed', 'openai-chat', { system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }] }, []],
  ] as const)('dropped fields: %s', (_name, family, fields, dropped) => {
    expect(translate(family, body(fields)).dropped).toEqual(dropped);
  });

  it('offers a deferred tool at once, and passes strict and input examples on', () => {
    // A schema OpenAI's strict mode takes: closed, every property required.
    const input_schema = { ...tool.input_schema, required: ['path'], additionalProperties: false };
    const request = body({ tools: [{ ...tool, input_schema, defer_loading: true, strict: true, input_examples: [{ path: 'a.txt' }] }] });
    expect(translate('openai-chat', request).value.tools).toEqual([
      { type: 'function', name: 'read', description: 'Reads a file\n\nInput Examples:\n{"path":"a.txt"}', inputSchema: input_schema, strict: true },
    ]);
  });

  it('drops a cache marker Bedrock cannot read, with a warning, and keeps the ones it can', () => {
    const request = body({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'persistent_20270101' } }] },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: [{ type: 'text', text: 'c', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      ],
    });
    expect(messageRequestErrors(request)).toEqual([]);
    expectForwardedUnchanged(request);
    const { value, warnings } = translate('bedrock', request);
    expect(value.prompt[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'a' }] });
    expect(value.prompt[2]).toEqual({ role: 'user', content: [{ type: 'text', text: 'c', providerOptions: { bedrock: { cachePoint: { type: 'default', ttl: '1h' } } } }] });
    expect(warnings).toContain('cache_control {"type":"persistent_20270101"} dropped: not a marker Amazon Bedrock can read');
  });

  it('takes a cache marker on a tool_reference as its tool result’s breakpoint (Bedrock’s cache point after it)', () => {
    const reference = { type: 'tool_reference', tool_name: 'read', cache_control: { type: 'ephemeral' } };
    const request = body({
      tools: [tool],
      messages: [hello, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [reference] }] }],
    });
    expect(messageRequestErrors(request)).toEqual([]);
    expectForwardedUnchanged(request);
    expect(translate('bedrock', request).value.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'read', output: { type: 'text', value: 'Tool "read" is now available to call.' }, providerOptions: { bedrock: { cachePoint: { type: 'default' } } } }],
    });
  });

  it('accepts the known service tiers without effect', () => {
    for (const tier of ['auto', 'standard_only']) expect(translate('openai-chat', body({ service_tier: tier })).value).not.toHaveProperty('providerOptions');
  });
});
