/** `GET /byok/{id}`: one credential of the caller's account. */
import type { Router } from 'express';
import type { ByokCredentialEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { ByokRouteDeps } from '#src/routes/get-byok.ts';

/** Binds `GET /byok/{id}`. */
export function bindGetByokByIdRoute(router: Router, deps: ByokRouteDeps): void {
  router.get('/byok/:id', async (req, res) => {
    const body: ByokCredentialEnvelope = { data: await deps.byok.get(callerOf(res), req.params.id) };
    res.json(body);
  });
}
