/**
 * The calendar of credit limits: which period an instant belongs to under a `limit_reset`, as OpenRouter
 * counts it (midnight UTC; weeks start on Monday; months on the 1st). Pure functions of a timestamp.
 */
import type { LimitReset } from '#src/limits/key-limits.ts';

/** One period: an id naming it in Redis keys, and its bounds (null for the key's whole life). */
export interface LimitPeriod {
  /** `d2025-11-21`, `w2025-11-17` (its Monday), `m2025-11`, or `all`. */
  id: string;
  start: Date | null;
  /** Exclusive: when the count starts over. */
  end: Date | null;
}

const DAY_MS = 86_400_000;

// Every settled request names its day; formatting a Date costs more than the rest of the ledger entry.
let lastDay = Number.NaN;
let lastDayText = '';

/** The UTC day (`YYYY-MM-DD`) of an instant: the unit the spending ledger is kept in. */
export function utcDay(epochMs: number): string {
  const day = Math.floor(epochMs / DAY_MS);
  if (day !== lastDay) {
    lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 10);
    lastDay = day;
  }
  return lastDayText;
}

function midnight(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS) * DAY_MS;
}

/** The period of `reset` holding the instant `epochMs`. */
export function limitPeriod(reset: LimitReset | null, epochMs: number): LimitPeriod {
  switch (reset) {
    case null:
      return { id: 'all', start: null, end: null };
    case 'daily': {
      const start = midnight(epochMs);
      return { id: `d${utcDay(start)}`, start: new Date(start), end: new Date(start + DAY_MS) };
    }
    case 'weekly': {
      const day = midnight(epochMs);
      // getUTCDay: Sunday 0 … Saturday 6; a week starts on Monday.
      const start = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
      return { id: `w${utcDay(start)}`, start: new Date(start), end: new Date(start + 7 * DAY_MS) };
    }
    case 'monthly': {
      const date = new Date(epochMs);
      const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
      const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      return { id: `m${utcDay(start).slice(0, 7)}`, start: new Date(start), end: new Date(end) };
    }
    default: {
      const unreachable: never = reset;
      throw new Error(`unknown limit_reset ${String(unreachable)}`);
    }
  }
}

/** How a period reads in a message: "today", "this week", "this month", or "in total". */
export function periodWords(reset: LimitReset | null): string {
  switch (reset) {
    case null:
      return 'in total';
    case 'daily':
      return 'today';
    case 'weekly':
      return 'this week';
    case 'monthly':
      return 'this month';
    default: {
      const unreachable: never = reset;
      throw new Error(`unknown limit_reset ${String(unreachable)}`);
    }
  }
}
