import { describe, expect, it } from 'vitest';
import type { MessageParam, MessageRequest } from '#src/api-types.ts';
import { hasPassedBackGatewayBlocks, withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import { toOpaque } from '#src/server-tools/web-search/opaque-content.ts';

const CLOCK = 'srvtoolu_gw_clock0000000001';
const ORDER = 'srvtoolu_gw_order0000000001';
const clockUse = { type: 'server_tool_use', id: CLOCK, name: 'datetime', input: { timezone: 'UTC' }, cache_control: { type: 'ephemeral' } };
const clockResult = {
  type: 'datetime_tool_result',
  tool_use_id: CLOCK,
  content: { type: 'datetime_result', datetime: '2026-01-15T12:00:00.000Z', timezone: 'UTC', utc_offset: '+00:00', day_of_week: 'Thursday', unix_ms: 1768478400000 },
};
const orderUse = { type: 'mcp_tool_use', id: ORDER, name: 'find_order', server_name: 'orders', input: { id: 7 } };
const orderResult = { type: 'mcp_tool_result', tool_use_id: ORDER, is_error: true, content: [{ type: 'text', text: 'no such order' }] };
const GATEWAY_CITATION = { type: 'web_search_result_location', url: 'https://a.example/', title: 'A', cited_text: 'alpha', encrypted_index: toOpaque({ search_result_index: 0 }) };
const ANTHROPIC_USE = { type: 'server_tool_use', id: 'srvtoolu_01Own', name: 'web_search', input: { query: 'b' } };

function request(assistant: unknown[]): MessageRequest {
  return { model: 'm/x', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: assistant }, { role: 'user', content: 'More?' }] as MessageParam[] };
}

describe('hasPassedBackGatewayBlocks', () => {
  it.each([
    ['a gateway call', [clockUse], true],
    ['a gateway result alone', [clockResult], true],
    ['an MCP call of the gateway', [orderUse], true],
    ['text citing a gateway search result', [{ type: 'text', text: 'a', citations: [GATEWAY_CITATION] }], true],
    ["Anthropic's own server tool call", [ANTHROPIC_USE], false],
    ['plain text and client tools', [{ type: 'text', text: 'a' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }], false],
  ])('%s: %s', (_case, assistant, expected) => {
    expect(hasPassedBackGatewayBlocks(request(assistant).messages)).toBe(expected);
  });

  it('reads only assistant turns', () => {
    expect(hasPassedBackGatewayBlocks([{ role: 'user', content: [clockResult] } as unknown as MessageParam])).toBe(false);
  });
});

describe('withGatewayBlocksAsText', () => {
  it('gives back the very same request when there is nothing to convert', () => {
    const plain = request([{ type: 'text', text: 'a' }, ANTHROPIC_USE]);
    expect(withGatewayBlocksAsText(plain)).toBe(plain);
  });

  it('turns each gateway block into text where it stood, keeps markers and other blocks, drops gateway citations', () => {
    const converted = withGatewayBlocksAsText(request([clockUse, clockResult, orderUse, orderResult, ANTHROPIC_USE, { type: 'text', text: 'Done.', citations: [GATEWAY_CITATION] }]));
    expect(converted.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: `[Tool call ${CLOCK}: datetime({"timezone":"UTC"})]`, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: expect.stringMatching(new RegExp(`^\\[Tool result ${CLOCK}\\]\\n.*2026-01-15`, 's')) },
        { type: 'text', text: `[Tool call ${ORDER}: mcp__orders__find_order({"id":7})]` },
        { type: 'text', text: `[Tool result ${ORDER} (error)]\nno such order` },
        ANTHROPIC_USE,
        { type: 'text', text: 'Done.' },
      ],
    });
    expect(converted.messages[0]).toEqual({ role: 'user', content: 'Hi' });
  });
});
