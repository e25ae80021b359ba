/** `GET /byok`: one page of the caller's provider credentials, optionally filtered by provider and workspace. */
import type { Router } from 'express';
import type { ByokCredentialPage } from '#src/api-types.ts';
import type { ByokService } from '#src/byok/byok-service.ts';
import { callerOf } from '#src/http/caller.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { pageOf } from '#src/routes/pagination.ts';

/** Dependencies of the `/byok` routes. */
export interface ByokRouteDeps {
  byok: ByokService;
  /** Checks that a `cursor` is one this list returned to the caller's account. */
  cursors: CursorBinder;
}

/** Binds `GET /byok`. */
export function bindGetByokRoute(router: Router, deps: ByokRouteDeps): void {
  router.get('/byok', async (req, res) => {
    const { provider, workspace_id: workspaceId } = req.query;
    const caller = callerOf(res);
    const body: ByokCredentialPage = await deps.byok.list(caller, {
      ...pageOf(req, 'byok', deps.cursors, caller.accountId),
      provider: typeof provider === 'string' ? provider : undefined,
      workspaceId: typeof workspaceId === 'string' ? workspaceId : undefined,
    });
    res.json(body);
  });
}
