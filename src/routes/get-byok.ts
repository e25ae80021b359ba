/** `GET /byok`: one page of the caller's provider credentials, optionally filtered by provider and workspace. */
import type { Router } from 'express';
import type { ByokCredentialPage } from '#src/api-types.ts';
import type { ByokService } from '#src/byok/byok-service.ts';
import { callerOf } from '#src/http/caller.ts';
import { pageOf } from '#src/routes/pagination.ts';

/** Dependencies of the `/byok` routes. */
export interface ByokRouteDeps {
  byok: ByokService;
}

/** Binds `GET /byok`. */
export function bindGetByokRoute(router: Router, deps: ByokRouteDeps): void {
  router.get('/byok', async (req, res) => {
    const { provider, workspace_id: workspaceId } = req.query;
    const body: ByokCredentialPage = await deps.byok.list(callerOf(res), {
      ...pageOf(req, 'byok'),
      provider: typeof provider === 'string' ? provider : undefined,
      workspaceId: typeof workspaceId === 'string' ? workspaceId : undefined,
    });
    res.json(body);
  });
}
