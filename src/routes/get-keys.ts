/** `GET /keys`: one page of the caller's live gateway API keys (hashes, never raw keys). */
import type { Router } from 'express';
import type { ApiKeyPage } from '#src/api-types.ts';
import type { KeyService } from '#src/keys/key-service.ts';
import { callerOf } from '#src/http/caller.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { pageOf } from '#src/routes/pagination.ts';

/** Dependencies of the `/keys` routes. */
export interface KeysRouteDeps {
  keys: KeyService;
  /** Checks that a `cursor` is one this list returned to the caller's account. */
  cursors: CursorBinder;
}

/** Binds `GET /keys`. */
export function bindGetKeysRoute(router: Router, deps: KeysRouteDeps): void {
  router.get('/keys', async (req, res) => {
    const { accountId } = callerOf(res);
    const page = pageOf(req, 'keys', deps.cursors, accountId);
    const { keys, total, nextCursor } = await deps.keys.list(accountId, page);
    const body: ApiKeyPage = { data: keys, total, offset: page.offset, limit: page.limit, next_cursor: nextCursor };
    res.json(body);
  });
}
