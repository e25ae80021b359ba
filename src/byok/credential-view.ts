/**
 * What a stored credential row looks like to a client and to the routing planner. Neither view carries the key
 * envelope: the wire view has only the masked label, the routing view only the flags routing decides on.
 */
import type { ByokCredential } from '#src/api-types.ts';
import type { PlanCredential } from '#src/routing/plan-types.ts';
import type { ByokCredentialRow } from '#src/store/schema.ts';

/** The wire resource of a stored credential. @see ByokCredential in openapi/components/schemas/byok.yaml */
export function toByokCredential(row: ByokCredentialRow): ByokCredential {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    provider: row.provider,
    name: row.name,
    label: row.label,
    created_at: row.createdAt.toISOString(),
    disabled: row.disabled,
    is_fallback: row.isFallback,
    is_byok_only: row.isByokOnly,
    is_required: row.isRequired,
    sort_order: row.sortOrder,
    allowed_api_key_hashes: row.allowedApiKeyHashes,
    allowed_models: row.allowedModels,
    allowed_user_ids: row.allowedUserIds,
    declared_region: row.declaredRegion,
    declared_zdr: row.declaredZdr,
  };
}

/** The routing planner's view of a stored credential. */
export function toPlanCredential(row: ByokCredentialRow): PlanCredential {
  return {
    id: row.id,
    provider: row.provider,
    disabled: row.disabled,
    isFallback: row.isFallback,
    isByokOnly: row.isByokOnly,
    isRequired: row.isRequired,
    sortOrder: row.sortOrder,
    allowedModels: row.allowedModels,
    allowedApiKeyHashes: row.allowedApiKeyHashes,
    allowedUserIds: row.allowedUserIds,
    declaredRegion: row.declaredRegion,
    declaredZdr: row.declaredZdr,
  };
}
