import { describe, expect, it } from 'vitest';
import type { MessageParam } from '#src/api-types.ts';
import { convertToModelToolTurns } from '#src/server-tools/convert-to-model-tool-turns.ts';
import { isGatewayToolUseId, newGatewayToolUseId } from '#src/server-tools/gateway-tool-use-id.ts';
import { isGatewayCitation, mapSearchResultCitation } from '#src/server-tools/map-search-result-citation.ts';
import { toOpaque } from '#src/server-tools/web-search/opaque-content.ts';

const SEARCH = 'srvtoolu_gw_search000000001';
const CLOCK = 'srvtoolu_gw_clock0000000001';
const ORDER = 'srvtoolu_gw_order0000000001';
const GATEWAY_CITATION = { type: 'web_search_result_location', url: 'https://a.example/', title: 'A', cited_text: 'alpha', encrypted_index: toOpaque({ search_result_index: 0 }) };
const ANTHROPIC_CITATION = { type: 'web_search_result_location', url: 'https://b.example/', title: 'B', cited_text: 'beta', encrypted_index: 'EpMBCioICBgCIiQ4ODk4YTFkY' };

const searchUse = { type: 'server_tool_use', id: SEARCH, name: 'web_search', input: { query: 'alpha facts' } };
const searchResult = {
  type: 'web_search_tool_result',
  tool_use_id: SEARCH,
  content: [{ type: 'web_search_result', url: 'https://a.example/', title: 'A', page_age: '2 days ago', encrypted_content: toOpaque({ snippet: 'alpha is first' }) }],
};
const clockUse = { type: 'server_tool_use', id: CLOCK, name: 'datetime', input: { timezone: 'Europe/Paris' } };
const clockResult = {
  type: 'datetime_tool_result',
  tool_use_id: CLOCK,
  content: { type: 'datetime_result', datetime: '2026-01-15T13:00:00.000+01:00', timezone: 'Europe/Paris', utc_offset: '+01:00', day_of_week: 'Thursday', unix_ms: 1768478400000 },
};

function convert(messages: unknown[], searchResultBlocks = false) {
  return convertToModelToolTurns(messages as MessageParam[], { searchResultBlocks });
}

describe('the gateway\'s tool blocks in a passed-back conversation become the tool turns the model saw', () => {
  it('calls, results and the text around them; Anthropic\'s own blocks and citations stay', () => {
    const anthropicUse = { type: 'server_tool_use', id: 'srvtoolu_01Qxbje4', name: 'web_search', input: { query: 'b' } };
    const anthropicResult = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01Qxbje4', content: [] };
    const messages = [
      { role: 'user', content: 'Tell me about alpha.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me search.' },
          searchUse,
          searchResult,
          { type: 'text', text: 'Alpha is first.', citations: [GATEWAY_CITATION, ANTHROPIC_CITATION] },
          anthropicUse,
          anthropicResult,
          { type: 'text', text: 'Done.', citations: [GATEWAY_CITATION] },
        ],
      },
      { role: 'user', content: 'Thanks!' },
    ];
    expect(convert(messages)).toEqual([
      { role: 'user', content: 'Tell me about alpha.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me search.' }, { type: 'tool_use', id: SEARCH, name: 'web_search', input: { query: 'alpha facts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: SEARCH, content: 'Search results for "alpha facts":\n\n[1] A\nURL: https://a.example/\nPage age: 2 days ago\nalpha is first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Alpha is first.', citations: [ANTHROPIC_CITATION] }, anthropicUse, anthropicResult, { type: 'text', text: 'Done.' }] },
      { role: 'user', content: 'Thanks!' },
    ]);
  });

  it('search results as search_result blocks for Anthropic-format upstreams', () => {
    const [, , user] = convert([{ role: 'user', content: 'q' }, { role: 'assistant', content: [searchUse, searchResult, { type: 'text', text: 'ok' }] }], true);
    expect(user).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: SEARCH, content: [{ type: 'search_result', source: 'https://a.example/', title: 'A', content: [{ type: 'text', text: 'Page age: 2 days ago\nalpha is first' }], citations: { enabled: true } }] }],
    });
  });

  it('parallel calls: one assistant turn of calls, one user turn of results', () => {
    const converted = convert([{ role: 'user', content: 'q' }, { role: 'assistant', content: [searchUse, clockUse, searchResult, clockResult, { type: 'text', text: 'Both done.' }] }]);
    expect(converted.map((message) => [message.role, typeof message.content === 'string' ? message.content : (message.content as { type: string }[]).map((block) => block.type)])).toEqual([
      ['user', 'q'],
      ['assistant', ['tool_use', 'tool_use']],
      ['user', ['tool_result', 'tool_result']],
      ['assistant', ['text']],
    ]);
    expect((converted[2]?.content as { content: unknown }[])[1]?.content).toBe('Current date and time in Europe/Paris: Thursday, 2026-01-15T13:00:00.000+01:00 (UTC+01:00).');
  });

  it('results ending an assistant turn join the user\'s next words in one user turn', () => {
    const converted = convert([{ role: 'user', content: 'time?' }, { role: 'assistant', content: [clockUse, clockResult] }, { role: 'user', content: 'and in Tokyo?' }]);
    expect(converted).toHaveLength(3);
    expect(converted[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: CLOCK, content: 'Current date and time in Europe/Paris: Thursday, 2026-01-15T13:00:00.000+01:00 (UTC+01:00).' },
        { type: 'text', text: 'and in Tokyo?' },
      ],
    });
  });

  it('MCP calls under the name the request offers now; errors stay errors', () => {
    const messages = [
      { role: 'user', content: 'order A-1?' },
      {
        role: 'assistant',
        content: [
          { type: 'mcp_tool_use', id: ORDER, name: 'lookup.order', server_name: 'orders', input: { order_id: 'A-1' } },
          { type: 'mcp_tool_result', tool_use_id: ORDER, is_error: true, content: [{ type: 'text', text: 'the MCP server orders failed: fetch failed' }] },
          { type: 'server_tool_use', id: SEARCH, name: 'web_search', input: { query: 'x' } },
          { type: 'web_search_tool_result', tool_use_id: SEARCH, content: { type: 'web_search_tool_result_error', error_code: 'unavailable' } },
        ],
      },
    ];
    const converted = convertToModelToolTurns(messages as MessageParam[], { searchResultBlocks: false, mcpPrefixes: new Map([['orders', 'shop']]) });
    // A call after a result was made in a later step: each step is its own pair of turns.
    expect(converted.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: ORDER, name: 'shop__lookup_order', input: { order_id: 'A-1' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: ORDER, content: 'the MCP server orders failed: fetch failed', is_error: true }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: SEARCH, name: 'web_search', input: { query: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: SEARCH, content: 'Error (unavailable)', is_error: true }] },
    ]);
  });

  it('a conversation without gateway blocks is left as it is', () => {
    const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'hello', citations: [ANTHROPIC_CITATION] }] }];
    const converted = convert(messages);
    expect(converted).toEqual(messages);
    expect(converted[1]).toBe(messages[1]);
  });
});

describe('ids and citations', () => {
  it('gateway ids are recognisable and unique', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newGatewayToolUseId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^srvtoolu_gw_[A-Za-z0-9_-]{16}$/);
    expect(isGatewayToolUseId('srvtoolu_01Qxbje4duKBes3Nj42MkZug')).toBe(false);
  });

  it('a search_result_location citing a gateway result becomes a web_search_result_location', () => {
    const citation = { type: 'search_result_location', source: 'https://a.example/', title: 'A', cited_text: 'alpha is first', search_result_index: 0, start_block_index: 0, end_block_index: 1 };
    const mapped = mapSearchResultCitation(citation, new Set(['https://a.example/']));
    expect(mapped).toEqual({ type: 'web_search_result_location', url: 'https://a.example/', title: 'A', cited_text: 'alpha is first', encrypted_index: expect.stringMatching(/^sbgw1\./) });
    expect(isGatewayCitation(mapped)).toBe(true);
    expect(isGatewayCitation(ANTHROPIC_CITATION)).toBe(false);
    expect(mapSearchResultCitation(citation, new Set(['https://other.example/']))).toBeUndefined();
    expect(mapSearchResultCitation({ type: 'char_location', cited_text: 'x' }, new Set())).toBeUndefined();
  });
});
