/**
 * The request table of the Anthropic SDK 1.14 audit: one row per recent request feature the SDK types
 * (typed here with the SDK's own beta params, so every row is a request the SDK can build), with what an
 * OpenAI Chat upstream must receive for it, or the 400 naming what it cannot express.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { expect } from 'vitest';
import { BLOCK_AND_TOOL_CASES } from '#test/integration/http/anthropic-sdk-request-block-cases.ts';

/** A row's request: the SDK's beta params, the model and limit filled in by the test. */
export type CaseParams = Partial<Omit<MessageCreateParamsNonStreaming, 'model' | 'stream'>>;

/** What the translated vendor (OpenAI Chat) gets: a body containing `sends` (without `notSent`), or a 400. */
export type Translated = { sends: Record<string, unknown>; notSent?: string[] } | { refuses: string; code?: string };

/** One request feature. */
export interface RequestCase {
  params: CaseParams;
  translated: Translated;
  /** What an Anthropic upstream receives, when a gateway field changes it (else the SDK's body, model replaced). */
  upstreamBody?: (sdkBody: Record<string, unknown>) => Record<string, unknown>;
  /** Also sent through `client.messages.create`, whose (non-beta) params type the same request. */
  stable?: boolean;
}

const PNG = 'iVBORw0KGgo=';
const weather = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const openAiWeather = { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.input_schema } };
const user = (text: string) => ({ role: 'user' as const, content: text });
const toolTurn = [user('Weather in Paris?'), { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] }];
const without = (name: string) => (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name));
const refuses = (what: string) => ({ refuses: `${what} is not supported by OpenAI Chat Completions` });
// Anthropic's code for a model without tool changes, on which Claude Code stops sending them there.
const TOOL_CHANGES_CODE = 'mid_conversation_tool_changes_not_supported';

export const REQUEST_CASES: Record<string, RequestCase> = {
  'a system message mid-conversation': {
    params: { messages: [user('Hi'), { role: 'assistant', content: 'Hello' }, { role: 'system', content: 'Answer in French.' }, user('Again')] },
    translated: { sends: { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'system', content: 'Answer in French.' }, { role: 'user', content: 'Again' }] } },
    stable: true,
  },
  'a system message with clear_at': { params: { messages: [user('Hi'), { role: 'system', content: 'Be brief.', clear_at: 'next_user_message' }, user('Go')] }, translated: refuses('messages[1].clear_at') },
  'a system message with clear_at and output_config null': {
    params: { messages: [user('Hi'), { role: 'system', content: 'Be brief.', clear_at: null, output_config: null }, user('Go')] },
    translated: { sends: { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Go' }] } },
  },
  'a system message with an effort': {
    params: { messages: [user('Hi'), { role: 'system', content: 'Think.', output_config: { effort: 'high' } }, user('Go')] },
    translated: { sends: { reasoning_effort: 'high', messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Think.' }, { role: 'user', content: 'Go' }] } },
  },
  'an effort-only system message over a top-level effort': {
    params: { output_config: { effort: 'high' }, messages: [user('Hi'), { role: 'system', content: [], output_config: { effort: 'low' } }, user('Go')] },
    translated: { sends: { reasoning_effort: 'low', messages: [{ role: 'user', content: 'Hi' }, { role: 'user', content: 'Go' }] } },
  },
  'a system message with an output format': {
    params: { messages: [user('Hi'), { role: 'system', content: 'Think.', output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } } as never, user('Go')] },
    translated: refuses('messages[1].output_config.format'),
  },
  'a tool_addition block': {
    params: { tools: [weather], messages: [user('Hi'), { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { ...weather, name: 'get_time' } } }] }, user('Go')] },
    translated: { ...refuses('tool_addition blocks in system content (messages[1].content[0])'), code: TOOL_CHANGES_CODE },
  },
  'a tool_removal block': {
    params: { tools: [weather], messages: [user('Hi'), { role: 'system', content: [{ type: 'tool_removal', tool: { type: 'tool_reference', name: 'get_weather' } }] }, user('Go')] },
    translated: { ...refuses('tool_removal blocks in system content (messages[1].content[0])'), code: TOOL_CHANGES_CODE },
  },
  'an mcp_tool_listing block': {
    params: { messages: [user('Hi'), { role: 'assistant', content: [{ type: 'mcp_tool_listing', mcp_server_name: 'atlas', tools: [{ name: 'lookup', input_schema: { type: 'object' } }] }] }, user('Go')] },
    translated: refuses('mcp_tool_listing blocks in assistant messages (messages[1].content[0])'),
  },
  'a fallback block': {
    params: { messages: [user('Hi'), { role: 'assistant', content: [{ type: 'fallback', from: { model: 'claude-opus-5' }, to: { model: 'claude-sonnet-4-5' } }, { type: 'text', text: 'Hello' }] }, user('Go')] },
    // A fallback block carries nothing for the model: translated vendors get the turn without it.
    translated: { sends: { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Go' }] } },
  },
  'a browser_state block in a tool result': {
    params: {
      tools: [weather],
      messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'browser_state', tabs: [{ tab_id: 't1', title: 'Météo', url: 'https://example.com', active: true }], state_changes: [{ type: 'tab_opened', tab_id: 't1' }] }] }] }],
    },
    translated: refuses('browser_state blocks in tool_result content'),
  },
  'a tool result with toolset_name': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Sunny', toolset_name: 'browser' }] }] },
    translated: refuses('messages[2].content[0].toolset_name'),
  },
  'a tool result with toolset_name null': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Sunny', toolset_name: null }] }] },
    translated: { sends: { messages: [{ role: 'user', content: 'Weather in Paris?' }, { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny' }] } },
  },
  'image transformations': {
    params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG }, transformations: { oversized_image: 'downsize' } }, { type: 'text', text: 'What is it?' }] }] },
    translated: refuses('messages[0].content[0].transformations'),
  },
  'image transformations null': {
    params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG }, transformations: null }, { type: 'text', text: 'What is it?' }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'text', text: 'What is it?' }] }] } },
  },
  'thinking disabled': { params: { thinking: { type: 'disabled' } }, translated: { sends: { reasoning_effort: 'none' } }, stable: true },
  'output_format (deprecated for output_config.format)': {
    params: { output_format: { type: 'json_schema', schema: { type: 'object', properties: { city: { type: 'string' } } } } },
    translated: { sends: { response_format: { type: 'json_schema', json_schema: { schema: { type: 'object', properties: { city: { type: 'string' } } }, strict: false, name: 'response' } } } },
  },
  'system blocks with a 5m cache marker': {
    params: { system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '5m' }, citations: null }] },
    translated: { sends: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] } },
    stable: true,
  },
  'thinking adaptive': { params: { thinking: { type: 'adaptive', display: 'summarized' } }, translated: { sends: {}, notSent: ['reasoning_effort'] }, stable: true },
  'thinking adaptive with block_binding': { params: { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: null } } }, translated: refuses('thinking.block_binding') },
  'thinking between_tools': { params: { thinking: { type: 'between_tools' } }, translated: refuses('thinking type between_tools'), stable: true },
  'thinking enabled, display omitted': { params: { max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000, display: 'omitted' } }, translated: { sends: { reasoning_effort: 'low' } }, stable: true },
  'output_config effort xhigh': { params: { output_config: { effort: 'xhigh' } }, translated: { sends: { reasoning_effort: 'xhigh' } }, stable: true },
  'output_config effort max': { params: { output_config: { effort: 'max' } }, translated: { sends: { reasoning_effort: 'max' } }, stable: true },
  'output_config task_budget': { params: { output_config: { task_budget: { type: 'tokens', total: 20_000 } } }, translated: refuses('output_config.task_budget') },
  'output_config with every property null': { params: { output_config: { effort: null, format: null, task_budget: null } }, translated: { sends: {}, notSent: ['reasoning_effort', 'response_format'] } },
  'output_config format': {
    params: { output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { city: { type: 'string' } } } } } },
    translated: { sends: { response_format: { type: 'json_schema', json_schema: { schema: { type: 'object', properties: { city: { type: 'string' } } }, strict: false, name: 'response' } } } },
    stable: true,
  },
  'context_management edits': {
    params: { context_management: { edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 3 } }, { type: 'clear_thinking_20251015', keep: 'all' }, { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 150_000 } }] } },
    translated: { sends: {}, notSent: ['context_management'] },
  },
  // Diagnostics explain Anthropic's prompt-cache misses beside the answer, which they cannot change: dropped with a warning.
  diagnostics: { params: { diagnostics: { previous_message_id: 'msg_01Previous' } }, translated: { sends: {}, notSent: ['diagnostics'] }, stable: true },
  inference_geo: { params: { inference_geo: 'us' }, translated: refuses('field inference_geo'), stable: true },
  // Anthropic's default (any geography) asks nothing of a translated vendor (it was the 400 above).
  'inference_geo global': { params: { inference_geo: 'global' }, translated: { sends: {}, notSent: ['inference_geo'] }, stable: true },
  'a container id': { params: { container: 'container_011' }, translated: refuses('field container'), stable: true },
  'a container with skills': { params: { container: { id: null, skills: [{ type: 'anthropic', skill_id: 'pptx', version: 'latest' }] } }, translated: refuses('field container') },
  mcp_servers: { params: { mcp_servers: [{ type: 'url', name: 'atlas', url: 'https://mcp.example.com/sse' }] }, translated: refuses('field mcp_servers') },
  compaction: { params: { compaction: { type: 'summarize', instructions: 'Keep names.' } }, translated: refuses('field compaction') },
  billing_policy: { params: { billing_policy: { type: 'billing_policy', bill_to: 'self' } }, translated: refuses('field billing_policy') },
  // A refusal's cache credit, redeemable on Anthropic only; it bills, it does not change the answer.
  fallback_credit_token: { params: { fallback_credit_token: { token: 'fct_01', mode: 'strict' } }, translated: { sends: {}, notSent: ['fallback_credit_token'] } },
  'fallback_credit_token as a string': { params: { fallback_credit_token: 'fct_02' }, translated: { sends: {}, notSent: ['fallback_credit_token'] } },
  'a thread': { params: { thread: { type: 'create' } }, translated: refuses('field thread') },
  'every nullable top-level field null': {
    params: { inference_geo: null, container: null, diagnostics: null, context_management: null, compaction: null, billing_policy: null, fallback_credit_token: null, thread: null },
    translated: { sends: {}, notSent: ['inference_geo', 'container', 'diagnostics', 'compaction', 'billing_policy', 'fallback_credit_token', 'thread'] },
  },
  'fallbacks null (none)': { params: { fallbacks: null }, translated: { sends: {}, notSent: ['fallbacks'] }, upstreamBody: without('fallbacks') },
  'metadata user_id': { params: { metadata: { user_id: 'user-7' } }, translated: { sends: { safety_identifier: expect.stringMatching(/^[0-9a-f]{64}$/) } }, stable: true },
  'service_tier standard_only': { params: { service_tier: 'standard_only' }, translated: { sends: {}, notSent: ['service_tier'] }, stable: true },
  'stop_sequences': { params: { stop_sequences: ['END'] }, translated: { sends: { stop: ['END'] } }, stable: true },
  'a block cache_control with a 1h ttl': { params: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] }] }, translated: { sends: { messages: [{ role: 'user', content: 'Hi' }] } }, stable: true },
  'the top-level cache_control with a 1h ttl (the gateway places it)': {
    params: { cache_control: { type: 'ephemeral', ttl: '1h' } },
    translated: { sends: {}, notSent: ['cache_control'] },
    upstreamBody: (body) => ({ ...without('cache_control')(body), messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] }] }),
    stable: true,
  },
  'speed fast on an endpoint without a fast variant (standard, with a warning)': { params: { speed: 'fast' }, translated: { sends: {}, notSent: ['speed', 'service_tier'] }, upstreamBody: without('speed'), stable: true },
  'tool_choice auto without parallel calls': { params: { tools: [weather], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }, translated: { sends: { tools: [openAiWeather], tool_choice: 'auto', parallel_tool_calls: false } }, stable: true },
  'tool_choice any': { params: { tools: [weather], tool_choice: { type: 'any' } }, translated: { sends: { tools: [openAiWeather], tool_choice: 'required' } }, stable: true },
  'tool_choice tool': { params: { tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' } }, translated: { sends: { tool_choice: { type: 'function', function: { name: 'get_weather' } } } }, stable: true },
  'tool_choice none': { params: { tools: [weather], tool_choice: { type: 'none' } }, translated: { sends: { tool_choice: 'none' } }, stable: true },
  'a custom tool with Anthropic-only hints': {
    params: { tools: [{ ...weather, type: 'custom', defer_loading: true, eager_input_streaming: null, allowed_callers: ['direct'], cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    translated: { sends: { tools: [openAiWeather] } },
  },
  'a custom tool with input_examples (in its description)': {
    params: { tools: [{ ...weather, input_examples: [{ city: 'Paris' }, { city: 'Lyon' }] }] },
    translated: { sends: { tools: [{ type: 'function', function: { ...openAiWeather.function, description: 'Weather of a city\n\nInput Examples:\n{"city":"Paris"}\n{"city":"Lyon"}' } }] } },
    stable: true,
  },
  'code_execution_20260521': { params: { tools: [{ type: 'code_execution_20260521', name: 'code_execution' }] }, translated: refuses('tool type code_execution_20260521 (an Anthropic tool)'), stable: true },
  'browser_toolset_20260801': { params: { tools: [{ type: 'browser_toolset_20260801' }] }, translated: refuses('tool type browser_toolset_20260801 (an Anthropic tool)'), stable: true },
  'computer_toolset_20260801': { params: { tools: [{ type: 'computer_toolset_20260801' }] }, translated: refuses('tool type computer_toolset_20260801 (an Anthropic tool)'), stable: true },
  'computer_20251124': { params: { tools: [{ type: 'computer_20251124', name: 'computer', display_width_px: 1280, display_height_px: 800 }] }, translated: refuses('tool type computer_20251124 (an Anthropic tool)') },
  'memory_20250818': { params: { tools: [{ type: 'memory_20250818', name: 'memory' }] }, translated: refuses('tool type memory_20250818 (an Anthropic tool)'), stable: true },
  'web_fetch_20260318': { params: { tools: [{ type: 'web_fetch_20260318', name: 'web_fetch', response_inclusion: 'full', max_uses: 3 }] }, translated: refuses('tool type web_fetch_20260318 (an Anthropic tool)'), stable: true },
  'web_fetch_20260309': { params: { tools: [{ type: 'web_fetch_20260309', name: 'web_fetch' }] }, translated: refuses('tool type web_fetch_20260309 (an Anthropic tool)'), stable: true },
  // The audit gateway has no search backend to run Anthropic's web search itself (anthropic-search-run.ts).
  'web_search_20260318': {
    params: { tools: [{ type: 'web_search_20260318', name: 'web_search' }] },
    translated: {
      refuses:
        'tools[0].type: web_search_20260318 cannot be served for audit/gpt: none of its endpoints is Anthropic-format (which runs the tool itself) and this gateway has no search backend configured (server_tools.web_search) to run it',
    },
    stable: true,
  },
  'advisor_20260301': { params: { tools: [{ type: 'advisor_20260301', name: 'advisor', model: 'claude-opus-5' }] }, translated: refuses('tool type advisor_20260301 (an Anthropic tool)') },
  'tool_search_tool_bm25': { params: { tools: [{ type: 'tool_search_tool_bm25', name: 'tool_search_tool_bm25' }] }, translated: refuses('tool type tool_search_tool_bm25 (an Anthropic tool)'), stable: true },
  ...BLOCK_AND_TOOL_CASES,
  'an mcp_toolset': {
    params: { mcp_servers: [{ type: 'url', name: 'atlas', url: 'https://mcp.example.com/sse' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 'atlas' }] },
    translated: refuses('field mcp_servers'),
  },
};


/**
 * Anthropic's forms of `fallbacks`, a field the gateway's routing reads as its own (models tried in turn, each
 * `{model}` only): a 400 naming them before any upstream is called, whatever the model.
 */
export const GATEWAY_FIELD_COLLISIONS: Record<string, { params: CaseParams; message: string }> = {
  'fallbacks "default"': { params: { fallbacks: 'default' }, message: 'Invalid request parameters: fallbacks: must be array or null' },
  'a fallbacks entry with max_tokens': {
    params: { fallbacks: [{ model: 'claude-opus-5', max_tokens: 1024 }] },
    message: 'Invalid request parameters: fallbacks[0].max_tokens: is not a known property here (remove it)',
  },
};
