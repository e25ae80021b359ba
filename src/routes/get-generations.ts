/** `GET /generations`: one page of the caller's generation records, with totals over the filter. */
import type { Request, Router } from 'express';
import type { GenerationPage, GenerationStatus } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { GenerationService } from '#src/observability/generation-service.ts';
import { DEFAULT_PAGE_LIMIT, integerQuery } from '#src/routes/pagination.ts';

/** Dependencies of the `/generations` routes. */
export interface GenerationRouteDeps {
  generations: GenerationService;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const DATE_AND_HOUR = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2})/;

// JavaScript's dates read a day past its month's end (02-30) and hour 24 as the next day, which RFC 3339
// has neither of: such a time is invalid (the service answers the 400), not silently another one.
function date(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = DATE_AND_HOUR.exec(value);
  if (parts) {
    const [year, month, day, hour] = parts.slice(1).map(Number) as [number, number, number, number];
    if (day > new Date(Date.UTC(year, month, 0)).getUTCDate() || hour > 23) return new Date(Number.NaN);
  }
  return new Date(value);
}

/** Binds `GET /generations`. */
export function bindGetGenerationsRoute(router: Router, deps: GenerationRouteDeps): void {
  router.get('/generations', async (req: Request, res) => {
    const { query } = req;
    const limit = integerQuery(req, 'limit', DEFAULT_PAGE_LIMIT);
    const body: GenerationPage = await deps.generations.list(callerOf(res), {
      from: date(query.from),
      to: date(query.to),
      model: text(query.model),
      provider: text(query.provider),
      keyHash: text(query.key_hash),
      user: text(query.user),
      sessionId: text(query.session_id),
      status: text(query.status) as GenerationStatus | undefined,
      cursor: text(query.cursor),
      limit,
    });
    res.json(body);
  });
}
