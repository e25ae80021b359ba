/** `PATCH /keys/{hash}`: change a key's name or limits; answers the key with its current usage. */
import type { Request, Router } from 'express';
import type { ApiKeyEnvelope, ApiKeyPatch } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { KeysRouteDeps } from '#src/routes/get-keys.ts';

/** Binds `PATCH /keys/{hash}`. */
export function bindPatchKeysByHashRoute(router: Router, deps: KeysRouteDeps): void {
  router.patch('/keys/:hash', async (req: Request<{ hash: string }, unknown, ApiKeyPatch>, res) => {
    const key = await deps.keys.update(callerOf(res).accountId, req.params.hash, req.body);
    const body: ApiKeyEnvelope = { data: key };
    res.json(body);
  });
}
