/**
 * Binds every `/byok` and `/keys` operation, so the route index needs one line for the credential half.
 */
import type { Router } from 'express';
import { bindGetByokRoute, type ByokRouteDeps } from '#src/routes/get-byok.ts';
import { bindPostByokRoute } from '#src/routes/post-byok.ts';
import { bindGetByokByIdRoute } from '#src/routes/get-byok-by-id.ts';
import { bindPatchByokByIdRoute } from '#src/routes/patch-byok-by-id.ts';
import { bindDeleteByokByIdRoute } from '#src/routes/delete-byok-by-id.ts';
import { bindGetKeysRoute, type KeysRouteDeps } from '#src/routes/get-keys.ts';
import { bindPostKeysRoute } from '#src/routes/post-keys.ts';
import { bindDeleteKeysByHashRoute } from '#src/routes/delete-keys-by-hash.ts';
import { bindPatchKeysByHashRoute } from '#src/routes/patch-keys-by-hash.ts';

/** What the credential routes need. */
export interface CredentialRouteDeps extends ByokRouteDeps, KeysRouteDeps {}

/** Binds `/byok`, `/byok/{id}`, `/keys` and `/keys/{hash}` (PATCH, DELETE). */
export function bindCredentialRoutes(router: Router, deps: CredentialRouteDeps): void {
  bindGetByokRoute(router, deps);
  bindPostByokRoute(router, deps);
  bindGetByokByIdRoute(router, deps);
  bindPatchByokByIdRoute(router, deps);
  bindDeleteByokByIdRoute(router, deps);
  bindGetKeysRoute(router, deps);
  bindPostKeysRoute(router, deps);
  bindPatchKeysByHashRoute(router, deps);
  bindDeleteKeysByHashRoute(router, deps);
}
