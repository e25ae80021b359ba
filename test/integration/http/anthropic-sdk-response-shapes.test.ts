/**
 * More of the response direction of the Anthropic SDK 1.14 audit (beside anthropic-sdk-response-blocks): what
 * an Anthropic-format upstream may answer that the SDK types and the recordings do not hold. Every stop reason
 * (`BetaStopReason`); the usage fields as `BetaUsage` types them, an iteration whose `model` is null
 * (`BetaMessageIterationUsage.model: Model | null`) among them; and the server tool result shapes of bash and
 * text-editor code execution, web search results and errors, encrypted code execution output and a `caller`
 * on programmatic calls. Each passes the gateway's response validation (on in tests) and reaches the real SDK
 * as sent, as JSON and streamed, with every event a `MessageStreamEvent` of the spec.
 */
import type { BetaRawMessageStreamEvent, BetaStopReason } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { AUDIT_MODEL, AUDIT_UPSTREAM_MODEL, useResponseAudit } from '#test/integration/http/anthropic-response-audit-support.ts';

const MODEL = AUDIT_MODEL;
const UPSTREAM_MODEL = AUDIT_UPSTREAM_MODEL;
const audit = useResponseAudit('sk-ant-response-shapes-0001');

/** Usage with every field `BetaUsage` has, as Anthropic fills them after a compaction. */
const USAGE = {
  input_tokens: 25,
  output_tokens: 9,
  cache_creation_input_tokens: 10,
  cache_read_input_tokens: 2,
  cache_creation: { ephemeral_5m_input_tokens: 4, ephemeral_1h_input_tokens: 6 },
  inference_geo: 'global',
  server_tool_use: { web_search_requests: 1, web_fetch_requests: 2 },
  service_tier: 'priority',
  output_tokens_details: { thinking_tokens: 3 },
  iterations: [
    { type: 'compaction', input_tokens: 40, output_tokens: 5, cache_creation: null, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    // The requested model's own iteration: Anthropic's type lets its model be null.
    { type: 'message', model: null, input_tokens: 25, output_tokens: 9, cache_creation: null, cache_creation_input_tokens: 10, cache_read_input_tokens: 2 },
  ],
  speed: 'standard',
  fallback_credit: null,
};

const TEXT = { type: 'text', text: 'Done.', citations: null };
const CALLER = { type: 'code_execution_20250825', tool_id: 'srvtoolu_00' };

/** Server tool blocks whose shapes neither the recordings nor anthropic-sdk-response-blocks hold. */
const BLOCKS: Record<string, Record<string, unknown>> = {
  'server_tool_use (web_search, called from code)': { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'Paris' }, caller: CALLER },
  'web_search_tool_result (results)': {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01',
    content: [{ type: 'web_search_result', url: 'https://example.com/paris', title: 'Paris', page_age: null, encrypted_content: 'RW5jcnlwdGVk' }],
    caller: CALLER,
  },
  'web_search_tool_result (error)': { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' }, caller: { type: 'direct' } },
  'bash_code_execution_tool_result (result)': {
    type: 'bash_code_execution_tool_result',
    tool_use_id: 'srvtoolu_02',
    content: { type: 'bash_code_execution_result', content: [{ type: 'bash_code_execution_output', file_id: 'file_011' }], return_code: 0, stderr: '', stdout: 'plot.png' },
  },
  'bash_code_execution_tool_result (error)': { type: 'bash_code_execution_tool_result', tool_use_id: 'srvtoolu_02', content: { type: 'bash_code_execution_tool_result_error', error_code: 'output_file_too_large' } },
  'text_editor_code_execution_tool_result (view)': {
    type: 'text_editor_code_execution_tool_result',
    tool_use_id: 'srvtoolu_03',
    content: { type: 'text_editor_code_execution_view_result', content: 'print(1)', file_type: 'text', num_lines: 1, start_line: 1, total_lines: 1 },
  },
  'text_editor_code_execution_tool_result (create)': {
    type: 'text_editor_code_execution_tool_result',
    tool_use_id: 'srvtoolu_03',
    content: { type: 'text_editor_code_execution_create_result', is_file_update: false },
  },
  'text_editor_code_execution_tool_result (str_replace)': {
    type: 'text_editor_code_execution_tool_result',
    tool_use_id: 'srvtoolu_03',
    content: { type: 'text_editor_code_execution_str_replace_result', lines: ['-a', '+b'], new_lines: 1, new_start: 1, old_lines: 1, old_start: 1 },
  },
  'text_editor_code_execution_tool_result (error)': {
    type: 'text_editor_code_execution_tool_result',
    tool_use_id: 'srvtoolu_03',
    content: { type: 'text_editor_code_execution_tool_result_error', error_code: 'file_not_found', error_message: null },
  },
  'code_execution_tool_result (encrypted)': {
    type: 'code_execution_tool_result',
    tool_use_id: 'srvtoolu_04',
    content: { type: 'encrypted_code_execution_result', content: [], encrypted_stdout: 'ZW5j', return_code: 0, stderr: '' },
  },
  'code_execution_tool_result (error)': { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_04', content: { type: 'code_execution_tool_result_error', error_code: 'unavailable' } },
  'tool_search_tool_result (error)': { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_05', content: { type: 'tool_search_tool_result_error', error_code: 'unavailable', error_message: null } },
  'tool_use (called from code)': { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' }, caller: CALLER },
};

const STOP_REASONS: BetaStopReason[] = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'compaction', 'refusal', 'model_context_window_exceeded'];

function upstreamMessage(content: unknown[], stopReason: BetaStopReason = 'end_turn'): Record<string, unknown> {
  return {
    id: 'msg_01ResponseShapes',
    type: 'message',
    role: 'assistant',
    model: UPSTREAM_MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? 'END' : null,
    stop_details: null,
    container: null,
    context_management: null,
    usage: USAGE,
  };
}

/** The same message as Anthropic streams it: each block whole in its `content_block_start`, a ping, the usage in `message_start`. */
function upstreamEvents(body: Record<string, unknown>): unknown[] {
  const content = body.content as unknown[];
  return [
    { type: 'message_start', message: { ...body, content: [], stop_reason: null, stop_sequence: null } },
    { type: 'ping' },
    ...content.flatMap((block, index) => [
      { type: 'content_block_start', index, content_block: block },
      { type: 'content_block_stop', index },
    ]),
    {
      type: 'message_delta',
      delta: { stop_reason: body.stop_reason, stop_sequence: body.stop_sequence, stop_details: null, container: null },
      context_management: null,
      usage: { output_tokens: USAGE.output_tokens, input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, server_tool_use: USAGE.server_tool_use, iterations: USAGE.iterations, output_tokens_details: USAGE.output_tokens_details, fallback_credit: null },
    },
    { type: 'message_stop' },
  ];
}

const REQUEST = { model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Plot the weather.' }] };

/** Streams `body` through the SDK; every event it got must be a spec `MessageStreamEvent`. */
async function streamed(body: Record<string, unknown>) {
  audit.upstream.enqueue(reply.events(upstreamEvents(body)));
  const stream = audit.client.beta.messages.stream(REQUEST);
  const events: BetaRawMessageStreamEvent[] = [];
  stream.on('streamEvent', (event) => events.push(event));
  const message = await stream.finalMessage();
  for (const event of events) expect(checkComponentSchema('MessageStreamEvent', event).errors, JSON.stringify(event)).toEqual([]);
  return message;
}

describe('the usage BetaUsage types, an iteration with a null model among it', () => {
  it('reaches the SDK as sent, as JSON', async () => {
    audit.upstream.enqueue(reply.json(upstreamMessage([TEXT])));
    const message = await audit.client.beta.messages.create(REQUEST);
    expect(message.usage).toEqual({ ...USAGE, cost: expect.any(Number), is_byok: false });
  });

  it('reaches the SDK as sent, streamed', async () => {
    const message = await streamed(upstreamMessage([TEXT]));
    expect(message.usage).toMatchObject({ ...USAGE, output_tokens: USAGE.output_tokens });
  });
});

describe('each BetaStopReason from an Anthropic upstream', () => {
  it.each(STOP_REASONS)('%s, as JSON', async (stopReason) => {
    audit.upstream.enqueue(reply.json(upstreamMessage([TEXT], stopReason)));
    const message = await audit.client.beta.messages.create(REQUEST);
    expect([message.stop_reason, message.stop_sequence]).toEqual([stopReason, stopReason === 'stop_sequence' ? 'END' : null]);
  });

  it.each(STOP_REASONS)('%s, streamed', async (stopReason) => {
    const message = await streamed(upstreamMessage([TEXT], stopReason));
    expect([message.stop_reason, message.stop_sequence]).toEqual([stopReason, stopReason === 'stop_sequence' ? 'END' : null]);
  });
});

describe('server tool result shapes from an Anthropic upstream', () => {
  it.each(Object.entries(BLOCKS))('%s, as JSON', async (_name, block) => {
    audit.upstream.enqueue(reply.json(upstreamMessage([block, TEXT])));
    expect((await audit.client.beta.messages.create(REQUEST)).content).toEqual([block, TEXT]);
  });

  it.each(Object.entries(BLOCKS))('%s, streamed', async (_name, block) => {
    expect((await streamed(upstreamMessage([block, TEXT]))).content).toEqual([block, TEXT]);
  });
});
