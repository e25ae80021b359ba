/** `GET /generations`: one page of the caller's generation records, with totals over the filter. */
import type { Request, Router } from 'express';
import type { GenerationPage, GenerationStatus } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { GenerationService } from '#src/observability/generation-service.ts';
import { existingTime } from '#src/observability/existing-time.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { cursorOf, DEFAULT_PAGE_LIMIT, integerQuery } from '#src/routes/pagination.ts';

/** Dependencies of the `/generations` routes. */
export interface GenerationRouteDeps {
  generations: GenerationService;
  /** Checks that a `cursor` is one this list returned to the caller's account. */
  cursors: CursorBinder;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function date(value: unknown): Date | undefined {
  return typeof value === 'string' ? existingTime(value) : undefined;
}

/** Binds `GET /generations`. */
export function bindGetGenerationsRoute(router: Router, deps: GenerationRouteDeps): void {
  router.get('/generations', async (req: Request, res) => {
    const { query } = req;
    const limit = integerQuery(req, 'limit', DEFAULT_PAGE_LIMIT);
    const caller = callerOf(res);
    const body: GenerationPage = await deps.generations.list(caller, {
      from: date(query.from),
      to: date(query.to),
      model: text(query.model),
      provider: text(query.provider),
      keyHash: text(query.key_hash),
      user: text(query.user),
      sessionId: text(query.session_id),
      status: text(query.status) as GenerationStatus | undefined,
      cursor: cursorOf(req, 'generations', deps.cursors, caller.accountId),
      limit,
    });
    res.json(body);
  });
}
