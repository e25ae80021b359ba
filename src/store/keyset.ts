/**
 * Keyset paging in SQL for the management lists: the condition "after this position" in a list's order, and
 * the creation time read at PostgreSQL's full precision for the position of a page's last item. The same SQL
 * runs on PGlite and PostgreSQL. @see src/http/list-cursor.ts for the cursor that carries a position.
 */
import type { AnyColumn, SQL } from 'drizzle-orm';
import { and, eq, gt, lt, or, sql } from '#src/store/drizzle.ts';

/** One column of a list's order and the position's value in it. */
export interface KeysetPart {
  column: AnyColumn;
  /** A plain value for the column, or SQL (a time, cast: drizzle would map a plain string as a Date). */
  value: unknown;
  descending?: boolean;
}

/**
 * The rows after a position in a lexicographic order: the first column past the value, or equal to it and the
 * rest after, and so on. Spelt out rather than as a row comparison so columns may run in different directions.
 */
export function afterPosition(parts: readonly KeysetPart[]): SQL {
  const branches = parts.map((part, index) => {
    const equalBefore = parts.slice(0, index).map((earlier) => eq(earlier.column, earlier.value));
    return and(...equalBefore, (part.descending === true ? lt : gt)(part.column, part.value));
  });
  return or(...branches) as SQL;
}

/** A `created_at` time as a position's SQL value (the text `createdAtText` read). */
export function timeValue(text: string): SQL {
  return sql`${text}::timestamptz`;
}

/**
 * A `timestamptz` column as `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC: microseconds, which a JavaScript date would
 * round to milliseconds, so that `timeValue` reads back exactly the stored time.
 */
export function createdAtText(column: AnyColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * A page read with one row more than `limit` (which tells whether a next page exists): the page, and its last
 * row when a next page exists (the position the next page starts after), else undefined.
 */
export function splitPage<T>(rows: readonly T[], limit: number): { page: T[]; lastBeforeMore: T | undefined } {
  const page = rows.slice(0, limit);
  return { page, lastBeforeMore: rows.length > limit ? page.at(-1) : undefined };
}
