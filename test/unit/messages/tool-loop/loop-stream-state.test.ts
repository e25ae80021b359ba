import { describe, expect, it } from 'vitest';
import type { ResolvedGatewayTool } from '#src/server-tools/index.ts';
import { LoopStreamState } from '#src/messages/tool-loop/loop-stream-state.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { encodeSseFrame, splitBytes, type ByteSplit } from '#test/helpers/fake-upstreams/index.ts';
import { wireEvent } from '#test/helpers/sse-events.ts';

const searchTool: ResolvedGatewayTool = { kind: 'web_search', modelName: 'web_search', description: 'Search', inputSchema: { type: 'object' }, settings: { maxResults: 5 } };
const mcpTool: ResolvedGatewayTool = { kind: 'mcp', modelName: 'mcp__orders__lookup_order', description: 'Orders', inputSchema: { type: 'object' }, settings: { server: 'orders', toolName: 'lookup_order' } };
const setup = { tools: new Map([searchTool, mcpTool].map((tool) => [tool.modelName, tool])) };
const SOURCE = 'https://a.example/';

const usage = { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 40, output_tokens: 1 };
const start = (id: string) => ({ type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage } });
const end = (reason: string, output: number) => [{ type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: output } }, { type: 'message_stop' }];

// Step 1: text, a gateway search, an MCP call and a client tool call.
const STEP_ONE = [
  start('msg_one'),
  { type: 'ping' },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Looking ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'é up.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_s', name: 'web_search', input: {} } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"alpha"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_m', name: 'mcp__orders__lookup_order', input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"order_id":"A-1"}' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_c', name: 'weather', input: {} } },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } },
  { type: 'content_block_stop', index: 3 },
  ...end('tool_use', 30),
];
// Step 2: text citing the gateway's search result.
const CITATION = { type: 'search_result_location', source: SOURCE, title: 'A', cited_text: 'alpha is first', search_result_index: 0, start_block_index: 0, end_block_index: 0 };
const STEP_TWO = [
  start('msg_two'),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: [] } },
  { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: CITATION } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Alpha is first.' } },
  { type: 'content_block_stop', index: 0 },
  ...end('end_turn', 12),
];

function sseText(events: readonly Record<string, unknown>[]): Buffer {
  return Buffer.concat(events.map((event) => encodeSseFrame({ event: String(event.type), data: event })));
}

/** Feeds one step's bytes, cut as given, through the SSE parser into the state; returns the client events. */
async function feed(state: LoopStreamState, events: readonly Record<string, unknown>[], split: ByteSplit): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  async function* chunks() {
    yield* splitBytes(sseText(events), split);
  }
  for await (const event of readSseEvents(chunks())) for (const produced of state.push(event)) out.push(JSON.parse(wireEvent(produced).data) as Record<string, unknown>);
  return out;
}

async function runLoop(split: ByteSplit) {
  const sources = new Set<string>();
  const state = new LoopStreamState({ setup, sources, model: 'test/claude', provider: 'Alpha Cloud' });
  const out = await feed(state, STEP_ONE, split);
  const first = state.endStep();
  sources.add(SOURCE);
  const [search, lookup] = first.reading.gatewayCalls;
  out.push(
    ...state.toolResults([
      { toolUseId: search?.id ?? '', isError: false, modelContent: [], modelText: '', clientResult: { type: 'web_search_tool_result', tool_use_id: search?.id ?? '', content: [] }, usage: {} },
      { toolUseId: lookup?.id ?? '', isError: false, modelContent: [], modelText: '', clientResult: { type: 'mcp_tool_result', tool_use_id: lookup?.id ?? '', is_error: false, content: 'shipped' }, usage: {} },
    ]),
  );
  out.push(...(await feed(state, STEP_TWO, split)));
  const second = state.endStep();
  out.push(...state.finish({ stopReason: 'end_turn', stopSequence: null, usage: { input_tokens: 200, output_tokens: 42, cache_read_input_tokens: 80, cost: 0.5 }, isByok: false }));
  out.push(...state.finish({ stopReason: 'end_turn', stopSequence: null, usage: { input_tokens: 0, output_tokens: 0 }, isByok: false }));
  return { out, first, second, ids: [search?.id, lookup?.id] };
}

describe('LoopStreamState', () => {
  it('emits one message: the exact sequence, continuous indexes, gateway calls as the client sees them', async () => {
    const { out, ids } = await runLoop({ every: 1_000_000 });
    const [searchId, lookupId] = ids;
    expect(searchId).toMatch(/^srvtoolu_gw_/);
    expect(out).toEqual([
      { type: 'message_start', message: { id: 'msg_one', type: 'message', role: 'assistant', model: 'test/claude', provider: 'Alpha Cloud', content: [], stop_reason: null, stop_sequence: null, usage } },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Looking ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'é up.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: searchId, name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"alpha"}' } },
      { type: 'content_block_stop', index: 1 },
      // The MCP call goes out whole once its input is complete.
      { type: 'content_block_start', index: 2, content_block: { type: 'mcp_tool_use', id: lookupId, name: 'lookup_order', server_name: 'orders', input: { order_id: 'A-1' } } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_c', name: 'weather', input: {} } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 3 },
      { type: 'content_block_start', index: 4, content_block: { type: 'web_search_tool_result', tool_use_id: searchId, content: [] } },
      { type: 'content_block_stop', index: 4 },
      { type: 'content_block_start', index: 5, content_block: { type: 'mcp_tool_result', tool_use_id: lookupId, is_error: false, content: 'shipped' } },
      { type: 'content_block_stop', index: 5 },
      { type: 'content_block_start', index: 6, content_block: { type: 'text', text: '', citations: [] } },
      { type: 'content_block_delta', index: 6, delta: { type: 'citations_delta', citation: { type: 'web_search_result_location', url: SOURCE, title: 'A', cited_text: 'alpha is first', encrypted_index: expect.stringMatching(/^sbgw1\./) } } },
      { type: 'content_block_delta', index: 6, delta: { type: 'text_delta', text: 'Alpha is first.' } },
      { type: 'content_block_stop', index: 6 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 200, output_tokens: 42, cache_creation_input_tokens: null, cache_read_input_tokens: 80, cost: 0.5, is_byok: false } },
      { type: 'message_stop' },
    ]);
  });

  it('reads each step: the model\'s turn with the gateway ids, the calls with their inputs, usage and stop reason', async () => {
    const { first, second, ids } = await runLoop({ every: 1_000_000 });
    const [searchId, lookupId] = ids;
    expect(first.reading.assistantTurn).toEqual([
      { type: 'text', text: 'Looking é up.' },
      { type: 'tool_use', id: searchId, name: 'web_search', input: { query: 'alpha' } },
      { type: 'tool_use', id: lookupId, name: 'mcp__orders__lookup_order', input: { order_id: 'A-1' } },
      { type: 'tool_use', id: 'toolu_c', name: 'weather', input: {} },
    ]);
    expect(first.reading.gatewayCalls.map((call) => [call.tool.modelName, call.input])).toEqual([
      ['web_search', { query: 'alpha' }],
      ['mcp__orders__lookup_order', { order_id: 'A-1' }],
    ]);
    expect(first.reading).toMatchObject({ clientToolCalls: 1, toolsCalled: ['web_search', 'mcp__orders__lookup_order', 'weather'] });
    expect(first).toMatchObject({ stopReason: 'tool_use', usage: { input_tokens: 100, output_tokens: 30, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 } });
    // The citation of the gateway's result is dropped from the model's own turn, as in a passed-back conversation.
    expect(second.reading.assistantTurn).toEqual([{ type: 'text', text: 'Alpha is first.' }]);
    expect(second).toMatchObject({ stopReason: 'end_turn', usage: { output_tokens: 12 } });
  });

  it.each([{ every: 1 }, { every: 3 }, { every: 17 }, { seed: 1 }, { seed: 7, maxChunkBytes: 5 }, { seed: 42, maxChunkBytes: 40 }])('the same events with the upstream bytes cut %j', async (split) => {
    const whole = await runLoop({ every: 1_000_000 });
    const cut = await runLoop(split);
    const normalize = (events: Record<string, unknown>[], ids: (string | undefined)[]) => {
      const text = ids.reduce<string>((json, id, index) => json.replaceAll(String(id), `ID${index}`), JSON.stringify(events));
      return JSON.parse(text.replace(/sbgw1\.[A-Za-z0-9_-]+/g, 'OPAQUE')) as unknown;
    };
    expect(normalize(cut.out, cut.ids)).toEqual(normalize(whole.out, whole.ids));
  });
});
