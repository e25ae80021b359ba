/**
 * The opaque cursors of the management lists (`GET /byok`, `/keys`, `/observability/destinations`): the sort
 * key of a page's last item, in base64url JSON, tagged with its list so one list's cursor is refused by
 * another. A cursor holds a position, never an account: the query that reads it is always scoped to the
 * caller's account, so a cursor made for another account lists nothing of that account. Pure.
 */
import { existingTime } from '#src/observability/existing-time.ts';

/** The lists paged by these cursors. */
export type CursorList = 'byok' | 'keys' | 'destinations';

/**
 * Where the next page starts (exclusive): the last item's sort key. `createdAt` is PostgreSQL's time at full
 * precision (microseconds, `YYYY-MM-DDTHH:MM:SS.ffffffZ`): a JavaScript date keeps milliseconds only, and a
 * position rounded to them would skip or repeat items created within the same millisecond.
 */
export interface ListPosition {
  createdAt: string;
  /** The item's id (a BYOK credential's or destination's UUID, a key's hash). */
  id: string;
  /** BYOK only: the credential's provider and `sort_order`, which come first in that list's order. */
  provider?: string;
  sortOrder?: number;
}

/** The page a list request asks for: after `cursor` when one is given, else at the (deprecated) `offset`. */
export interface ListPage {
  offset: number;
  limit: number;
  cursor?: ListPosition | undefined;
}

const MICROSECOND_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:(\d{2}):(\d{2})\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_HASH = /^[a-f0-9]{64}$/;
const INT32 = 2 ** 31;

/** Encodes the position of a list's item. */
export function encodeListCursor(list: CursorList, position: ListPosition): string {
  const body: Record<string, unknown> = { l: list, c: position.createdAt, i: position.id };
  if (list === 'byok') Object.assign(body, { p: position.provider, s: position.sortOrder });
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

// A time PostgreSQL can read back exactly: an existing day and hour (existingTime), minutes and seconds below 60.
function isExactTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const parts = MICROSECOND_TIME.exec(value);
  if (!parts || Number(parts[1]) < 1 || Number(parts[2]) > 59 || Number(parts[3]) > 59) return false;
  return !Number.isNaN(existingTime(value).getTime());
}

/** Decodes a cursor of `list`; undefined when it is not one this list returned (any other text included). */
export function decodeListCursor(list: CursorList, text: string): ListPosition | undefined {
  let parsed: Record<string, unknown>;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    parsed = value as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { l, c, i, p, s } = parsed;
  if (l !== list || !isExactTime(c) || typeof i !== 'string') return undefined;
  if (!(list === 'keys' ? KEY_HASH : UUID).test(i)) return undefined;
  if (list !== 'byok') return { createdAt: c, id: i };
  // sort_order is a 32-bit integer column: a value past it would fail in the database, not as a 400.
  if (typeof p !== 'string' || p.length === 0 || p.length > 128) return undefined;
  if (typeof s !== 'number' || !Number.isInteger(s) || s < -INT32 || s >= INT32) return undefined;
  return { createdAt: c, id: i, provider: p, sortOrder: s };
}
