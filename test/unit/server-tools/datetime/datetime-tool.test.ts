import { afterAll, describe, expect, it } from 'vitest';
import { readClock } from '#src/server-tools/datetime/datetime-tool.ts';
import { clientToolUseBlock, executeGatewayTool, type ServerToolRuntime } from '#src/server-tools/index.ts';
import { callOf, serverToolsConfig, toolContext, toolOf } from '#test/helpers/server-tool-context.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';

const WINTER = new Date('2026-01-15T12:00:00.250Z');
const SUMMER = new Date('2026-07-15T12:00:00.000Z');
const runtimes: ServerToolRuntime[] = [];
afterAll(() => Promise.all(runtimes.map((runtime) => runtime.close())));

describe('reading the clock in a zone', () => {
  it.each([
    [WINTER, 'UTC', '2026-01-15T12:00:00.250+00:00', '+00:00', 'Thursday'],
    [WINTER, 'Europe/Paris', '2026-01-15T13:00:00.250+01:00', '+01:00', 'Thursday'],
    [SUMMER, 'Europe/Paris', '2026-07-15T14:00:00.000+02:00', '+02:00', 'Wednesday'],
    [WINTER, 'Asia/Kolkata', '2026-01-15T17:30:00.250+05:30', '+05:30', 'Thursday'],
    [WINTER, 'America/St_Johns', '2026-01-15T08:30:00.250-03:30', '-03:30', 'Thursday'],
    [WINTER, 'Pacific/Chatham', '2026-01-16T01:45:00.250+13:45', '+13:45', 'Friday'],
    [SUMMER, 'America/Los_Angeles', '2026-07-15T05:00:00.000-07:00', '-07:00', 'Wednesday'],
  ])('%s in %s', (now, zone, datetime, offset, day) => {
    expect(readClock(now, zone)).toEqual({ datetime, timezone: zone, utcOffset: offset, dayOfWeek: day, unixMs: now.getTime() });
  });
});

async function ask(input: unknown, entry: Record<string, unknown> = {}) {
  const config = serverToolsConfig();
  const { context, runtime } = toolContext(config, { now: () => WINTER });
  runtimes.push(runtime);
  const call = callOf(toolOf(config, { type: 'gateway:datetime', ...entry }), input);
  expectSpecBlock(clientToolUseBlock(call));
  const outcome = await executeGatewayTool(call, context);
  expectSpecBlock(outcome.clientResult);
  return outcome;
}

describe('gateway:datetime', () => {
  it('answers in the zone the model asks for', async () => {
    const outcome = await ask({ timezone: 'Asia/Tokyo' });
    expect(outcome).toEqual({
      toolUseId: outcome.toolUseId,
      isError: false,
      modelText: 'Current date and time in Asia/Tokyo: Thursday, 2026-01-15T21:00:00.250+09:00 (UTC+09:00).',
      modelContent: [{ type: 'text', text: 'Current date and time in Asia/Tokyo: Thursday, 2026-01-15T21:00:00.250+09:00 (UTC+09:00).' }],
      clientResult: {
        type: 'datetime_tool_result',
        tool_use_id: outcome.toolUseId,
        content: { type: 'datetime_result', datetime: '2026-01-15T21:00:00.250+09:00', timezone: 'Asia/Tokyo', utc_offset: '+09:00', day_of_week: 'Thursday', unix_ms: WINTER.getTime() },
      },
      usage: { datetime_requests: 1 },
    });
  });

  it('uses the request\'s default zone, else UTC, when the model names none', async () => {
    expect((await ask({}, { timezone: 'Europe/Paris' })).modelText).toContain('in Europe/Paris: Thursday, 2026-01-15T13:00:00.250+01:00');
    expect((await ask({})).modelText).toContain('in UTC: Thursday, 2026-01-15T12:00:00.250+00:00');
  });

  it('an unknown zone is an error result naming it', async () => {
    const outcome = await ask({ timezone: 'Europe/Atlantis' });
    expect(outcome.isError).toBe(true);
    expect(outcome.modelText).toBe('Error (invalid_tool_input): unknown time zone "Europe/Atlantis": give an IANA name such as "Europe/Paris"');
    expect(outcome.clientResult).toEqual({
      type: 'datetime_tool_result',
      tool_use_id: outcome.toolUseId,
      content: { type: 'datetime_tool_result_error', error_code: 'invalid_tool_input', message: 'unknown time zone "Europe/Atlantis": give an IANA name such as "Europe/Paris"' },
    });
    expect(outcome.usage).toEqual({ datetime_requests: 1 });
  });

  it.each([
    ['input that is not an object', 'Tokyo', 'the input must be an object'],
    ['a zone that is not text', { timezone: 9 }, 'timezone must be a string'],
  ])('%s is an error result', async (_name, input, message) => {
    expect((await ask(input)).modelText).toBe(`Error (invalid_tool_input): ${message}`);
  });
});
