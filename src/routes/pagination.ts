/** Reading `cursor`, `offset` and `limit` of list operations (validated by the spec; defaults applied here). */
import type { Request } from 'express';
import { BadRequestError } from '#src/errors.ts';
import type { CursorList, CursorPositions, ListPage } from '#src/http/list-cursor.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';

/** The spec's default page size. @see Limit in openapi/components/parameters/management.yaml */
export const DEFAULT_PAGE_LIMIT = 50;

/**
 * An integer query parameter the validator has checked, or `fallback` when absent. The validator's type
 * coercion turns `Infinity`, `-Infinity` and `1e400` into numbers and then skips the schema's integer type and
 * bounds for them (ajv), so they reached the database as a 500. src/http/strict-query.ts now refuses them (and
 * every integer not written in decimal digits) before a route runs; this stays as the guard of last resort.
 */
export function integerQuery(req: Request, name: string, fallback: number): number {
  const value = req.query[name];
  let number: number;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string' && value !== '') number = Number.parseInt(value, 10);
  else return fallback;
  if (!Number.isFinite(number)) throw new BadRequestError(`${name} must be an integer`, { details: [{ path: `/query/${name}`, message: 'must be integer' }] });
  return number;
}

/**
 * Where the request's `cursor` says a page of `list` starts, or undefined without one. A cursor that list did
 * not return to this account (another account's or list's, altered, or no cursor at all) is a 400 naming the
 * parameter; which of these it is stays unsaid, so a probe learns nothing about other accounts.
 */
export function cursorOf<L extends CursorList>(req: Request, list: L, cursors: CursorBinder, accountId: string): CursorPositions[L] | undefined {
  const text = req.query.cursor;
  if (typeof text !== 'string') return undefined;
  const position = cursors.decode(list, accountId, text);
  if (!position) {
    throw new BadRequestError('cursor is not a next_cursor this list returned to this account', {
      details: [{ path: '/query/cursor', message: 'must be the next_cursor of a page of this list, for this account' }],
    });
  }
  return position;
}

/**
 * The page a request to a management list asks for. A cursor as {@link cursorOf} refuses, or a cursor with a
 * non-zero offset (two starting points), is a 400 naming the parameter.
 */
export function pageOf(req: Request, list: Exclude<CursorList, 'generations'>, cursors: CursorBinder, accountId: string): ListPage {
  const page: ListPage = { offset: integerQuery(req, 'offset', 0), limit: integerQuery(req, 'limit', DEFAULT_PAGE_LIMIT) };
  const cursor = cursorOf(req, list, cursors, accountId);
  if (!cursor) return page;
  if (page.offset !== 0) throw new BadRequestError('cursor cannot be combined with offset', { details: [{ path: '/query/offset', message: 'must be absent or 0 with a cursor' }] });
  return { ...page, cursor };
}
