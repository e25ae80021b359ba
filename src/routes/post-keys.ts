/** `POST /keys`: issue a gateway API key in the caller's workspace; the raw key is in this response only. */
import type { Request, Router } from 'express';
import type { ApiKeyCreate, CreatedApiKeyEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { KeysRouteDeps } from '#src/routes/get-keys.ts';

/** Binds `POST /keys`. */
export function bindPostKeysRoute(router: Router, deps: KeysRouteDeps): void {
  router.post('/keys', async (req: Request<Record<string, string>, unknown, ApiKeyCreate>, res) => {
    const caller = callerOf(res);
    const { kind, name, ...limits } = req.body;
    const issued = await deps.keys.issue({ accountId: caller.accountId, workspaceId: caller.workspaceId, kind, name: name ?? null, limits });
    const body: CreatedApiKeyEnvelope = { data: issued };
    res.status(201).json(body);
  });
}
