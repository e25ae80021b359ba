/** `DELETE /byok/{id}`: delete a credential and wipe its key material; 204. */
import type { Router } from 'express';
import { callerOf } from '#src/http/caller.ts';
import type { ByokRouteDeps } from '#src/routes/get-byok.ts';

/** Binds `DELETE /byok/{id}`. */
export function bindDeleteByokByIdRoute(router: Router, deps: ByokRouteDeps): void {
  router.delete('/byok/:id', async (req, res) => {
    await deps.byok.remove(callerOf(res), req.params.id);
    res.status(204).end();
  });
}
