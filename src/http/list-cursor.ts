/**
 * The one encoding of the lists' opaque cursors (`GET /byok`, `/keys`, `/observability/destinations`,
 * `/generations`): the sort key of a page's last item in base64url JSON, tagged with its list so one list's
 * cursor is refused by another. A cursor is bound to an account by src/http/cursor-binding.ts, which signs
 * what this module encodes; the positions here are only checked for shape. Pure.
 */
import { existingTime } from '#src/observability/existing-time.ts';

/**
 * Where the next page of a management list starts (exclusive): the last item's sort key. `createdAt` is
 * PostgreSQL's time at full precision (microseconds, `YYYY-MM-DDTHH:MM:SS.ffffffZ`): a JavaScript date keeps
 * milliseconds only, and a position rounded to them would skip or repeat items created within the same millisecond.
 */
export interface ListPosition {
  createdAt: string;
  /** The item's id (a BYOK credential's or destination's UUID, a key's hash). */
  id: string;
  /** BYOK only: the credential's provider and `sort_order`, which come first in that list's order. */
  provider?: string;
  sortOrder?: number;
}

/**
 * Where the next page of `GET /generations` starts (exclusive): the last record's id. Pages are ordered by id
 * descending, which is by `created_at` then id (an id begins with its record's time), a total order.
 */
export interface GenerationPosition {
  id: string;
}

/** The position each list's cursor carries. */
export interface CursorPositions {
  byok: ListPosition;
  keys: ListPosition;
  destinations: ListPosition;
  generations: GenerationPosition;
}

/** The lists paged by these cursors. */
export type CursorList = keyof CursorPositions;

/** The page a management list request asks for: after `cursor` when one is given, else at the (deprecated) `offset`. */
export interface ListPage {
  offset: number;
  limit: number;
  cursor?: ListPosition | undefined;
}

type Fields = Record<string, unknown>;

const MICROSECOND_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:(\d{2}):(\d{2})\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_HASH = /^[a-f0-9]{64}$/;
const GENERATION_ID = /^gen_[A-Za-z0-9_-]{24}$/;
const INT32 = 2 ** 31;

// A time PostgreSQL can read back exactly: an existing day and hour (existingTime), minutes and seconds below 60.
function isExactTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const parts = MICROSECOND_TIME.exec(value);
  if (!parts || Number(parts[1]) < 1 || Number(parts[2]) > 59 || Number(parts[3]) > 59) return false;
  return !Number.isNaN(existingTime(value).getTime());
}

function timeAndId(fields: Fields, id: RegExp): ListPosition | undefined {
  const { c, i } = fields;
  return isExactTime(c) && typeof i === 'string' && id.test(i) ? { createdAt: c, id: i } : undefined;
}

/** Each list's fields: written from a position, read back (undefined for anything this gateway did not write). */
const FORMATS: { [L in CursorList]: { write(position: CursorPositions[L]): Fields; read(fields: Fields): CursorPositions[L] | undefined } } = {
  byok: {
    write: (position) => ({ c: position.createdAt, i: position.id, p: position.provider, s: position.sortOrder }),
    read(fields) {
      const base = timeAndId(fields, UUID);
      const { p, s } = fields;
      // sort_order is a 32-bit integer column: a value past it would fail in the database, not as a 400.
      if (!base || typeof p !== 'string' || p.length === 0 || p.length > 128) return undefined;
      if (typeof s !== 'number' || !Number.isInteger(s) || s < -INT32 || s >= INT32) return undefined;
      return { ...base, provider: p, sortOrder: s };
    },
  },
  keys: { write: (position) => ({ c: position.createdAt, i: position.id }), read: (fields) => timeAndId(fields, KEY_HASH) },
  destinations: { write: (position) => ({ c: position.createdAt, i: position.id }), read: (fields) => timeAndId(fields, UUID) },
  generations: {
    write: (position) => ({ i: position.id }),
    read: (fields) => (typeof fields.i === 'string' && GENERATION_ID.test(fields.i) ? { id: fields.i } : undefined),
  },
};

/** Encodes the position of a list's item (unbound: src/http/cursor-binding.ts binds it to an account). */
export function encodeListCursor<L extends CursorList>(list: L, position: CursorPositions[L]): string {
  return Buffer.from(JSON.stringify({ l: list, ...FORMATS[list].write(position) })).toString('base64url');
}

/** Decodes a cursor of `list`; undefined when it is not one this list made (any other text included). */
export function decodeListCursor<L extends CursorList>(list: L, text: string): CursorPositions[L] | undefined {
  let fields: Fields;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    fields = value as Fields;
  } catch {
    return undefined;
  }
  return fields.l === list ? FORMATS[list].read(fields) : undefined;
}
