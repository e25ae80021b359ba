import { describe, expect, it } from 'vitest';
import type { MessageParam, ResponseContentBlock } from '#src/api-types.ts';
import { readStepContent } from '#src/messages/tool-loop/step-content.ts';
import { convertToModelToolTurns, modelToolResultBlock, type GatewayToolOutcome, type ResolvedGatewayTool } from '#src/server-tools/index.ts';
import { datetimeModelText } from '#src/server-tools/datetime/datetime-tool.ts';

const datetime: ResolvedGatewayTool = { kind: 'datetime', modelName: 'clock', description: 'Now', inputSchema: { type: 'object' }, settings: { defaultTimezone: 'UTC' } };
const setup = { tools: new Map([[datetime.modelName, datetime]]) };
const SOURCE = 'https://a.example/';

function clockOutcome(id: string): GatewayToolOutcome {
  const reading = { datetime: '2026-01-15T13:00:00.000+01:00', timezone: 'Europe/Paris', utc_offset: '+01:00', day_of_week: 'Thursday' };
  // The text the datetime tool gives the model, which a passed-back result block turns back into.
  const modelText = datetimeModelText({ datetime: reading.datetime, timezone: reading.timezone, utcOffset: reading.utc_offset, dayOfWeek: reading.day_of_week });
  return {
    toolUseId: id,
    isError: false,
    modelContent: [{ type: 'text', text: modelText }],
    modelText,
    clientResult: { type: 'datetime_tool_result', tool_use_id: id, content: { type: 'datetime_result', ...reading, unix_ms: 1768478400000 } },
    usage: { datetime_requests: 1 },
  };
}

describe('readStepContent', () => {
  const content = [
    { type: 'thinking', thinking: 'The user wants the time and the weather.', signature: 'sig-1' },
    { type: 'text', text: 'Checking.', citations: null },
    { type: 'tool_use', id: 'toolu_model_1', name: 'clock', input: { timezone: 'Europe/Paris' } },
    { type: 'tool_use', id: 'toolu_client_1', name: 'weather', input: { city: 'Paris' } },
  ] as ResponseContentBlock[];

  it('a gateway call both ways: server_tool_use for the client, tool_use for the model, the same gateway id', () => {
    const reading = readStepContent(content, setup, new Set());
    const [call] = reading.gatewayCalls;
    expect(call?.id).toMatch(/^srvtoolu_gw_/);
    expect(reading.clientBlocks).toEqual([content[0], content[1], { type: 'server_tool_use', id: call?.id, name: 'clock', input: { timezone: 'Europe/Paris' } }, content[3]]);
    expect(reading.assistantTurn).toEqual([content[0], content[1], { type: 'tool_use', id: call?.id, name: 'clock', input: { timezone: 'Europe/Paris' } }, content[3]]);
    expect(reading).toMatchObject({ clientToolCalls: 1, toolsCalled: ['clock', 'weather'] });
  });

  it('across a client-tool turn, the passed-back message converts back to what the model saw, plus the client\'s result', () => {
    const reading = readStepContent(content, setup, new Set());
    const outcome = clockOutcome(reading.gatewayCalls[0]?.id ?? '');
    // What the client got: the step's blocks, then the results of its gateway calls.
    const answered = [...reading.clientBlocks, outcome.clientResult];
    const clientResult = { type: 'tool_result', tool_use_id: 'toolu_client_1', content: 'Sunny' };
    const passedBack = [
      { role: 'user', content: 'Time and weather in Paris?' },
      { role: 'assistant', content: answered },
      { role: 'user', content: [clientResult] },
    ] as MessageParam[];
    expect(convertToModelToolTurns(passedBack, { searchResultBlocks: false, mcpPrefixes: new Map() })).toEqual([
      { role: 'user', content: 'Time and weather in Paris?' },
      { role: 'assistant', content: reading.assistantTurn },
      { role: 'user', content: [modelToolResultBlock(outcome, { searchResultBlocks: false }), clientResult] },
    ]);
  });

  it('citations of the gateway\'s search results: mapped for the client, dropped from the model\'s turn; others kept', () => {
    const gatewayCitation = { type: 'search_result_location', source: SOURCE, title: 'A', cited_text: 'alpha', search_result_index: 0, start_block_index: 0, end_block_index: 0 };
    const ownCitation = { type: 'search_result_location', source: 'https://client.example/', title: 'C', cited_text: 'gamma', search_result_index: 1, start_block_index: 0, end_block_index: 0 };
    const reading = readStepContent([{ type: 'text', text: 'Alpha.', citations: [gatewayCitation, ownCitation] }] as ResponseContentBlock[], setup, new Set([SOURCE]));
    expect(reading.clientBlocks).toEqual([
      { type: 'text', text: 'Alpha.', citations: [{ type: 'web_search_result_location', url: SOURCE, title: 'A', cited_text: 'alpha', encrypted_index: expect.any(String) }, ownCitation] },
    ]);
    expect(reading.assistantTurn).toEqual([{ type: 'text', text: 'Alpha.', citations: [ownCitation] }]);
  });
});
