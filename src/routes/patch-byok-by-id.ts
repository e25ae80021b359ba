/** `PATCH /byok/{id}`: change a credential (omitted unchanged, null clears, arrays replace, `key` rotates). */
import type { Request, Router } from 'express';
import type { ByokCredentialEnvelope, ByokCredentialPatch } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { ByokRouteDeps } from '#src/routes/get-byok.ts';

/** Binds `PATCH /byok/{id}`. */
export function bindPatchByokByIdRoute(router: Router, deps: ByokRouteDeps): void {
  router.patch('/byok/:id', async (req: Request<{ id: string }, unknown, ByokCredentialPatch>, res) => {
    const body: ByokCredentialEnvelope = { data: await deps.byok.update(callerOf(res), req.params.id, req.body) };
    res.json(body);
  });
}
