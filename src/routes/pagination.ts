/** Reading `offset` and `limit` of list operations (validated by the spec; defaults applied here). */
import type { Request } from 'express';

/** The spec's default page size. @see Limit in openapi/components/parameters/management.yaml */
export const DEFAULT_PAGE_LIMIT = 50;

function integerParameter(value: unknown, fallback: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value !== '') return Number.parseInt(value, 10);
  return fallback;
}

/** The page a list request asks for. */
export function pageOf(req: Request): { offset: number; limit: number } {
  return { offset: integerParameter(req.query.offset, 0), limit: integerParameter(req.query.limit, DEFAULT_PAGE_LIMIT) };
}
