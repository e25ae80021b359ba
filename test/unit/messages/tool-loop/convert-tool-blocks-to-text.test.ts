import { describe, expect, it } from 'vitest';
import type { MessageParam } from '#src/api-types.ts';
import { convertToolBlocksToText, convertUnofferedGatewayCallsToText } from '#src/messages/tool-loop/convert-tool-blocks-to-text.ts';

const SEARCH = 'srvtoolu_gw_search000000001';
const CLOCK = 'srvtoolu_gw_clock0000000001';
const messages = [
  { role: 'user', content: 'Hi' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: SEARCH, name: 'web_search', input: { query: 'q' } },
      { type: 'tool_use', id: CLOCK, name: 'datetime', input: {} },
      { type: 'tool_use', id: 'toolu_client', name: 'lookup', input: {} },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: SEARCH, content: 'results' },
      { type: 'tool_result', tool_use_id: CLOCK, content: 'noon' },
      { type: 'tool_result', tool_use_id: 'toolu_client', is_error: true, content: 'failed' },
    ],
  },
] as MessageParam[];

describe('convertToolBlocksToText', () => {
  it('writes every tool call and result as text', () => {
    const [, assistant, user] = convertToolBlocksToText(messages);
    expect(assistant?.content).toEqual([
      { type: 'text', text: 'Looking.' },
      { type: 'text', text: `[Tool call ${SEARCH}: web_search({"query":"q"})]` },
      { type: 'text', text: `[Tool call ${CLOCK}: datetime({})]` },
      { type: 'text', text: '[Tool call toolu_client: lookup({})]' },
    ]);
    expect(user?.content).toEqual([
      { type: 'text', text: `[Tool result ${SEARCH}]\nresults` },
      { type: 'text', text: `[Tool result ${CLOCK}]\nnoon` },
      { type: 'text', text: '[Tool result toolu_client (error)]\nfailed' },
    ]);
  });
});

describe('convertUnofferedGatewayCallsToText', () => {
  it('writes only the gateway calls of tools not offered, with their results, as text', () => {
    const [, assistant, user] = convertUnofferedGatewayCallsToText(messages, new Set(['datetime', 'lookup']));
    expect((assistant?.content as { type: string }[]).map((block) => block.type)).toEqual(['text', 'text', 'tool_use', 'tool_use']);
    expect((assistant?.content as { text?: string }[])[1]?.text).toBe(`[Tool call ${SEARCH}: web_search({"query":"q"})]`);
    expect((user?.content as { type: string }[]).map((block) => block.type)).toEqual(['text', 'tool_result', 'tool_result']);
  });

  it('gives back the same messages when every gateway call\'s tool is offered (a client tool never counts)', () => {
    expect(convertUnofferedGatewayCallsToText(messages, new Set(['datetime', 'web_search']))).toBe(messages);
  });
});
