/** `POST /byok`: store a provider key of the caller's account (encrypted; answered with its masked label). */
import type { Request, Router } from 'express';
import type { ByokCredentialCreate, ByokCredentialEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { ByokRouteDeps } from '#src/routes/get-byok.ts';

/** Binds `POST /byok`. */
export function bindPostByokRoute(router: Router, deps: ByokRouteDeps): void {
  router.post('/byok', async (req: Request<Record<string, string>, unknown, ByokCredentialCreate>, res) => {
    const body: ByokCredentialEnvelope = { data: await deps.byok.create(callerOf(res), req.body) };
    res.status(201).json(body);
  });
}
