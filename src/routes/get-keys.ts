/** `GET /keys`: one page of the caller's live gateway API keys (hashes, never raw keys). */
import type { Router } from 'express';
import type { ApiKeyPage } from '#src/api-types.ts';
import type { KeyService } from '#src/keys/key-service.ts';
import { callerOf } from '#src/http/caller.ts';
import { pageOf } from '#src/routes/pagination.ts';

/** Dependencies of the `/keys` routes. */
export interface KeysRouteDeps {
  keys: KeyService;
}

/** Binds `GET /keys`. */
export function bindGetKeysRoute(router: Router, deps: KeysRouteDeps): void {
  router.get('/keys', async (req, res) => {
    const page = pageOf(req, 'keys');
    const { keys, total, nextCursor } = await deps.keys.list(callerOf(res).accountId, page);
    const body: ApiKeyPage = { data: keys, total, offset: page.offset, limit: page.limit, next_cursor: nextCursor };
    res.json(body);
  });
}
