/**
 * The response direction of the Anthropic SDK 1.14 audit: an Anthropic-format upstream answers with each
 * content block type the SDK types (`BetaContentBlock`), and with the message fields and stream deltas it
 * reads (`stop_details`, `diagnostics`, `input_transformations`, `compaction_delta`, `citations_delta`,
 * `signature_delta`). Each passes the gateway's response validation (on in tests) and reaches the real SDK
 * intact: `beta.messages.create()` and a stream's `finalMessage()` equal the upstream's message, but for what
 * the gateway documents it amends (`model`, `provider`, `usage.cost`, `usage.is_byok`), and every event the
 * client gets is a `MessageStreamEvent` of the spec.
 */
import type { BetaRawMessageStreamEvent } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { AUDIT_MODEL, AUDIT_UPSTREAM_MODEL, useResponseAudit } from '#test/integration/http/anthropic-response-audit-support.ts';

const MODEL = AUDIT_MODEL;
const UPSTREAM_MODEL = AUDIT_UPSTREAM_MODEL;
const audit = useResponseAudit('sk-ant-response-blocks-0001');

const CITATION = { type: 'char_location', cited_text: 'Paris', document_index: 0, document_title: 'Atlas', start_char_index: 0, end_char_index: 5, file_id: null };

/** One block per `BetaContentBlock` member, with the start and deltas Anthropic streams it as. */
interface BlockCase {
  block: Record<string, unknown>;
  start?: Record<string, unknown>;
  deltas?: Record<string, unknown>[];
}

const BLOCKS: Record<string, BlockCase> = {
  'text with citations': {
    block: { type: 'text', text: 'Paris', citations: [CITATION] },
    start: { type: 'text', text: '', citations: null },
    deltas: [
      { type: 'citations_delta', citation: CITATION },
      { type: 'text_delta', text: 'Paris' },
    ],
  },
  thinking: {
    block: { type: 'thinking', thinking: 'Let me see.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
    start: { type: 'thinking', thinking: '', signature: '' },
    deltas: [
      { type: 'thinking_delta', thinking: 'Let me see.' },
      { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
    ],
  },
  redacted_thinking: { block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' } },
  tool_use: {
    block: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' }, toolset_name: null },
    start: { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {}, caller: { type: 'direct' }, toolset_name: null },
    deltas: [{ type: 'input_json_delta', partial_json: '{"city": "Paris"}' }],
  },
  'server_tool_use (advisor)': { block: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'advisor', input: {} } },
  advisor_tool_result: { block: { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_01', content: { type: 'advisor_result', text: 'Check the units.', stop_reason: 'end_turn' } } },
  'advisor_tool_result (redacted)': { block: { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_01', content: { type: 'advisor_redacted_result', encrypted_content: 'ZW5j', stop_reason: null } } },
  web_fetch_tool_result: {
    block: { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_02', content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' } },
  },
  code_execution_tool_result: {
    block: { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_03', content: { type: 'code_execution_result', stdout: '4\n', stderr: '', return_code: 0, content: [] } },
  },
  tool_search_tool_result: {
    block: { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_04', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }] } },
  },
  mcp_tool_use: { block: { type: 'mcp_tool_use', id: 'mcptoolu_01', name: 'lookup', server_name: 'atlas', input: { q: 'Paris' } } },
  mcp_tool_result: { block: { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_01', is_error: false, content: [{ type: 'text', text: 'France', citations: null }] } },
  mcp_tool_listing: { block: { type: 'mcp_tool_listing', mcp_server_name: 'atlas', tools: [{ name: 'lookup', description: 'Looks up a place', input_schema: { type: 'object' } }] } },
  container_upload: { block: { type: 'container_upload', file_id: 'file_011CNha8iCJcU1wXNR6q4V8w' } },
  'compaction with tool changes': {
    block: {
      type: 'compaction',
      content: 'The user asked about Paris.',
      encrypted_content: null,
      signature: null,
      tool_changes: [
        { type: 'tool_addition', tool: { type: 'tool_reference', name: 'get_weather' } },
        { type: 'tool_removal', tool: { type: 'mcp_toolset_reference', server_name: 'atlas' } },
      ],
    },
    start: {
      type: 'compaction',
      content: null,
      encrypted_content: null,
      signature: null,
      tool_changes: [
        { type: 'tool_addition', tool: { type: 'tool_reference', name: 'get_weather' } },
        { type: 'tool_removal', tool: { type: 'mcp_toolset_reference', server_name: 'atlas' } },
      ],
    },
    deltas: [{ type: 'compaction_delta', content: 'The user asked about Paris.', encrypted_content: null }],
  },
  fallback: { block: { type: 'fallback', from: { model: 'claude-opus-5' }, to: { model: UPSTREAM_MODEL }, trigger: { type: 'refusal', category: 'cyber' } } },
};

const USAGE = {
  input_tokens: 25,
  output_tokens: 9,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
  cache_creation: null,
  inference_geo: 'us',
  server_tool_use: null,
  service_tier: 'standard',
  output_tokens_details: null,
  iterations: null,
  speed: 'standard',
  fallback_credit: null,
};

/** The upstream's message around `content`, with the message fields SDK 1.14 reads. */
function upstreamMessage(content: unknown[]): Record<string, unknown> {
  return {
    id: 'msg_01ResponseBlocks',
    type: 'message',
    role: 'assistant',
    model: UPSTREAM_MODEL,
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: { id: 'container_011', expires_at: '2026-11-27T18:00:00Z', skills: null },
    context_management: { applied_edits: [] },
    diagnostics: { cache_miss_reason: { type: 'model_changed', cache_missed_input_tokens: 12 } },
    input_transformations: [{ type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'model_binding_mismatch' }],
    usage: USAGE,
  };
}

/** What the SDK must return: the upstream's message with the gateway's documented amendments. */
function expectedMessage(upstreamBody: Record<string, unknown>): Record<string, unknown> {
  return { ...upstreamBody, model: MODEL, provider: 'Anthropic', usage: { ...USAGE, cost: expect.any(Number), is_byok: false } };
}

/** The upstream's stream for the same message: the blocks as `content_block_start`, deltas and stop. */
function upstreamEvents(body: Record<string, unknown>, blocks: BlockCase[]): unknown[] {
  const { stop_reason, stop_sequence, stop_details, container, context_management, ...start } = body;
  return [
    { type: 'message_start', message: { ...start, content: [], stop_reason: null, stop_sequence: null, stop_details: null, container: null, context_management: null, usage: { ...USAGE, output_tokens: 1 } } },
    ...blocks.flatMap((entry, index) => [
      { type: 'content_block_start', index, content_block: entry.start ?? entry.block },
      ...(entry.deltas ?? []).map((delta) => ({ type: 'content_block_delta', index, delta })),
      { type: 'content_block_stop', index },
    ]),
    { type: 'message_delta', delta: { stop_reason, stop_sequence, stop_details, container }, context_management, usage: { output_tokens: USAGE.output_tokens } },
    { type: 'message_stop' },
  ];
}

const REQUEST = { model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Where is Paris?' }] };

describe('each BetaContentBlock type from an Anthropic upstream reaches the SDK intact', () => {
  it.each(Object.entries(BLOCKS))('%s, as JSON', async (_name, entry) => {
    const body = upstreamMessage([entry.block]);
    audit.upstream.enqueue(reply.json(body));
    const message = await audit.client.beta.messages.create(REQUEST);
    expect(message).toEqual(expectedMessage(body));
  });

  it.each(Object.entries(BLOCKS))('%s, streamed', async (_name, entry) => {
    const body = upstreamMessage([entry.block]);
    audit.upstream.enqueue(reply.events(upstreamEvents(body, [entry])));
    const stream = audit.client.beta.messages.stream(REQUEST);
    const events: BetaRawMessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([entry.block]);
    expect(message).toMatchObject({ id: body.id, stop_reason: 'end_turn', container: body.container, context_management: body.context_management });
    // The SDK's stream takes `model` from a fallback block's `to` (Anthropic's id, passed through), not from
    // message_start; every other stream keeps the gateway's slug.
    expect(message.model).toBe(entry.block.type === 'fallback' ? UPSTREAM_MODEL : MODEL);
    for (const event of events) {
      const check = checkComponentSchema('MessageStreamEvent', event);
      expect(check.errors, JSON.stringify(event)).toEqual([]);
    }
  });
});

describe('a message holding every block type at once', () => {
  const all = Object.values(BLOCKS);

  it('as JSON equals the upstream message', async () => {
    const body = upstreamMessage(all.map((entry) => entry.block));
    audit.upstream.enqueue(reply.json(body));
    expect(await audit.client.beta.messages.create(REQUEST)).toEqual(expectedMessage(body));
  });

  it('streamed, finalMessage() equals the upstream message', async () => {
    const body = upstreamMessage(all.map((entry) => entry.block));
    audit.upstream.enqueue(reply.events(upstreamEvents(body, all)));
    const message = await audit.client.beta.messages.stream(REQUEST).finalMessage();
    expect(message.content).toEqual(body.content);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('through audit.client.messages.create (the non-beta resource) as well', async () => {
    const body = upstreamMessage(all.map((entry) => entry.block));
    audit.upstream.enqueue(reply.json(body));
    expect(await audit.client.messages.create(REQUEST)).toEqual(expectedMessage(body));
  });
});

describe('a refusal with the stop_details SDK 1.14 reads', () => {
  const stopDetails = { type: 'refusal', category: 'cyber', explanation: 'Declined.', fallback_credit_token: 'fct_01', fallback_has_prefill_claim: false, recommended_model: 'claude-opus-5' };

  it('reaches the SDK intact, as JSON', async () => {
    const body = { ...upstreamMessage([{ type: 'text', text: 'I can’t help with that.', citations: null }]), stop_reason: 'refusal', stop_details: stopDetails };
    audit.upstream.enqueue(reply.json(body));
    expect(await audit.client.beta.messages.create(REQUEST)).toEqual(expectedMessage(body));
  });
});
