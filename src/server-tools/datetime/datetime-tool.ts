/**
 * `gateway:datetime`: the current date and time in an IANA time zone (the model's, else the request's default,
 * else UTC), read from the runtime's clock and formatted by the platform's Intl (ICU) time-zone data.
 */
import type { DatetimeToolResultBlock } from '#src/api-types.ts';
import type { DatetimeTool, GatewayToolCall, GatewayToolOutcome, ToolExecutionContext } from '../server-tool-types.ts';
import { errorOutcome, textContent, usageOfOneCall } from '../tool-outcome.ts';

/** What the model reads about the tool. */
export const DATETIME_DESCRIPTION =
  'Returns the current date and time. Use it whenever the answer depends on today\'s date or the current time. ' +
  'Optionally give an IANA time zone such as "Europe/Paris" or "America/New_York".';

/** The input the model sends. */
export const DATETIME_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    timezone: { type: 'string', description: 'IANA time zone name, e.g. "Asia/Tokyo". Omit for the default zone.' },
  },
  additionalProperties: false,
} as const;

/** Whether the platform knows this IANA time zone. */
export function isKnownTimezone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The clock read in a zone. */
export interface DatetimeReading {
  datetime: string;
  timezone: string;
  utcOffset: string;
  dayOfWeek: string;
  unixMs: number;
}

/** Reads `now` in `timezone` (which must be known): local ISO 8601 time with its UTC offset. */
export function readClock(now: Date, timezone: string): DatetimeReading {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    fractionalSecondDigits: 3,
    weekday: 'long',
    timeZoneName: 'longOffset',
  });
  const parts = Object.fromEntries(format.formatToParts(now).map((part) => [part.type, part.value]));
  // `longOffset` reads "GMT+05:30", or plain "GMT" at offset zero.
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  return {
    datetime: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${parts.fractionalSecond}${offset}`,
    // The name asked for, not ICU's canonical alias (which can be an older name: Asia/Calcutta for Asia/Kolkata).
    timezone,
    utcOffset: offset,
    dayOfWeek: parts.weekday ?? '',
    unixMs: now.getTime(),
  };
}

/** What the model reads for a clock reading (also rebuilt from the client's block on later turns). */
export function datetimeModelText(reading: Pick<DatetimeReading, 'datetime' | 'timezone' | 'utcOffset' | 'dayOfWeek'>): string {
  return `Current date and time in ${reading.timezone}: ${reading.dayOfWeek}, ${reading.datetime} (UTC${reading.utcOffset}).`;
}

/** Runs one call: never throws; an unknown zone is an error result naming it. */
export async function runDatetime(call: GatewayToolCall<DatetimeTool>, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  const input = call.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return errorOutcome(call, 'invalid_tool_input', 'the input must be an object');
  const requested = (input as { timezone?: unknown }).timezone;
  if (requested !== undefined && requested !== null && typeof requested !== 'string') return errorOutcome(call, 'invalid_tool_input', 'timezone must be a string');
  const timezone = typeof requested === 'string' && requested.trim() !== '' ? requested.trim() : call.tool.settings.defaultTimezone;
  if (!isKnownTimezone(timezone)) return errorOutcome(call, 'invalid_tool_input', `unknown time zone ${JSON.stringify(timezone)}: give an IANA name such as "Europe/Paris"`);
  const reading = readClock(context.runtime.now(), timezone);
  const modelText = datetimeModelText(reading);
  const clientResult: DatetimeToolResultBlock = {
    type: 'datetime_tool_result',
    tool_use_id: call.id,
    content: {
      type: 'datetime_result',
      datetime: reading.datetime,
      timezone: reading.timezone,
      utc_offset: reading.utcOffset,
      day_of_week: reading.dayOfWeek,
      unix_ms: reading.unixMs,
    },
  };
  return { toolUseId: call.id, isError: false, modelContent: textContent(modelText), modelText, clientResult, usage: usageOfOneCall('datetime') };
}
