/**
 * `GET` and `PATCH /workspace/settings`: whether the management key's workspace stores prompts and
 * completions with its generation records, and for how many days. A workspace without a row has the defaults.
 */
import { eq } from '#src/store/drizzle.ts';
import type { WorkspaceSettings, WorkspaceSettingsPatch } from '#src/api-types.ts';
import type { Caller } from '#src/http/caller.ts';
import type { Database } from '#src/store/database.ts';
import { workspaceSettings, type WorkspaceSettingsRow } from '#src/store/schema.ts';

/** Retention when a workspace never set one. */
export const DEFAULT_CONTENT_RETENTION_DAYS = 30;

/** The operations behind `/workspace/settings`. */
export interface WorkspaceSettingsService {
  get(caller: Caller): Promise<WorkspaceSettings>;
  update(caller: Caller, patch: WorkspaceSettingsPatch): Promise<WorkspaceSettings>;
}

function toView(workspaceId: string, row: WorkspaceSettingsRow | undefined): WorkspaceSettings {
  return {
    workspace_id: workspaceId,
    store_content: row?.storeContent ?? false,
    content_retention_days: row?.contentRetentionDays ?? DEFAULT_CONTENT_RETENTION_DAYS,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}

/** Creates the service; `changed` refreshes this instance's directory and tells the others. */
export function createWorkspaceSettingsService(deps: { database: Database; changed(): Promise<void> }): WorkspaceSettingsService {
  const { database } = deps;
  const get = async (caller: Caller): Promise<WorkspaceSettings> => {
    const [row] = await database.db.select().from(workspaceSettings).where(eq(workspaceSettings.workspaceId, caller.workspaceId));
    return toView(caller.workspaceId, row);
  };
  return {
    get,
    async update(caller, patch) {
      // Nothing to change: written anyway, updated_at said the defaults had changed when nothing had.
      if (patch.store_content === undefined && patch.content_retention_days === undefined) return get(caller);
      const changes = {
        ...(patch.store_content !== undefined ? { storeContent: patch.store_content } : {}),
        ...(patch.content_retention_days !== undefined ? { contentRetentionDays: patch.content_retention_days } : {}),
        updatedAt: new Date(),
      };
      const [row] = await database.db
        .insert(workspaceSettings)
        .values({ workspaceId: caller.workspaceId, ...changes })
        .onConflictDoUpdate({ target: workspaceSettings.workspaceId, set: changes })
        .returning();
      await deps.changed();
      return toView(caller.workspaceId, row);
    },
  };
}
