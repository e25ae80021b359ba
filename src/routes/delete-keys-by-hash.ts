/** `DELETE /keys/{hash}`: revoke a gateway API key of the caller's account; 204. */
import type { Router } from 'express';
import { callerOf } from '#src/http/caller.ts';
import type { KeysRouteDeps } from '#src/routes/get-keys.ts';

/** Binds `DELETE /keys/{hash}`. */
export function bindDeleteKeysByHashRoute(router: Router, deps: KeysRouteDeps): void {
  router.delete('/keys/:hash', async (req, res) => {
    await deps.keys.revoke(callerOf(res).accountId, req.params.hash);
    res.status(204).end();
  });
}
