/** `PATCH /workspace/settings`: turn content storage on or off and set its retention. */
import type { Request, Router } from 'express';
import type { WorkspaceSettingsEnvelope, WorkspaceSettingsPatch } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { WorkspaceSettingsRouteDeps } from '#src/routes/get-workspace-settings.ts';

/** Binds `PATCH /workspace/settings`. */
export function bindPatchWorkspaceSettingsRoute(router: Router, deps: WorkspaceSettingsRouteDeps): void {
  router.patch('/workspace/settings', async (req: Request<Record<string, string>, unknown, WorkspaceSettingsPatch>, res) => {
    const body: WorkspaceSettingsEnvelope = { data: await deps.workspaceSettings.update(callerOf(res), req.body) };
    res.json(body);
  });
}
