/** `GET /workspace/settings`: the management key's workspace's observability settings. */
import type { Router } from 'express';
import type { WorkspaceSettingsEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { WorkspaceSettingsService } from '#src/observability/workspace-settings-service.ts';

/** Dependencies of the settings routes. */
export interface WorkspaceSettingsRouteDeps {
  workspaceSettings: WorkspaceSettingsService;
}

/** Binds `GET /workspace/settings`. */
export function bindGetWorkspaceSettingsRoute(router: Router, deps: WorkspaceSettingsRouteDeps): void {
  router.get('/workspace/settings', async (_req, res) => {
    const body: WorkspaceSettingsEnvelope = { data: await deps.workspaceSettings.get(callerOf(res)) };
    res.json(body);
  });
}
