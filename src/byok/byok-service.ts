/**
 * BYOK credentials of one account: create, list, read, change, delete. Every operation is scoped to the
 * caller's account, so another account's credential is as absent as a missing one (404). Changes are
 * optimistic: an update is conditional on the version it was computed from, and loses with 409 if another
 * change got there first, leaving the row exactly as that other change wrote it.
 */
import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { and, asc, count, eq, getTableColumns } from '#src/store/drizzle.ts';
import { afterPosition, createdAtText, splitPage, timeValue } from '#src/store/keyset.ts';
import type { ListPosition } from '#src/http/list-cursor.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { BadRequestError, ConflictError, NotFoundError } from '#src/errors.ts';
import type { Caller } from '#src/http/caller.ts';
import type { Database } from '#src/store/database.ts';
import { byokCredentials, workspaces, type ByokCredentialRow } from '#src/store/schema.ts';
import type { KeyVault, ProviderKeyMaterial } from '#src/byok/key-vault.ts';
import { maskProviderKey } from '#src/byok/mask-key.ts';
import { checkFlags, checkKeyHashes, resolveDeclaredRegion, RuleViolation } from '#src/byok/rules.ts';
import { parseProviderKey } from '#src/byok/parse-provider-key.ts';
import { toByokCredential } from '#src/byok/credential-view.ts';
import { liveKeyHashes } from '#src/keys/key-service.ts';
import type { ByokCredential, ByokCredentialCreate, ByokCredentialPage, ByokCredentialPatch } from '#src/api-types.ts';

/** Filters and page of `GET /byok`: after `cursor` when given, else at `offset` (deprecated). */
export interface ListCredentialsQuery {
  offset: number;
  limit: number;
  cursor?: ListPosition | undefined;
  provider?: string | undefined;
  workspaceId?: string | undefined;
}

/** The operations behind `/byok`. */
export interface ByokService {
  create(caller: Caller, input: ByokCredentialCreate): Promise<ByokCredential>;
  list(caller: Caller, query: ListCredentialsQuery): Promise<ByokCredentialPage>;
  get(caller: Caller, id: string): Promise<ByokCredential>;
  update(caller: Caller, id: string, patch: ByokCredentialPatch): Promise<ByokCredential>;
  remove(caller: Caller, id: string): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs the pure rules, turning a violation into the interface's 400 with its precise reason. */
function enforce<T>(rules: () => T): T {
  try {
    return rules();
  } catch (error) {
    if (error instanceof RuleViolation) throw new BadRequestError(error.reason);
    throw error;
  }
}

/** What the BYOK service works with. */
export interface ByokServiceDeps {
  database: Database;
  vault: KeyVault;
  /** Makes the account-bound `next_cursor` of a page. */
  cursors: CursorBinder;
  /** True for a provider slug the gateway can route to (the catalog's); any slug is accepted when omitted. */
  isKnownProvider?: (slug: string) => boolean;
}

/** Creates the BYOK service over a database and a key vault. */
export function createByokService(deps: ByokServiceDeps): ByokService {
  const { database, vault } = deps;
  const owned = (caller: Caller, id: string): SQL | undefined => and(eq(byokCredentials.id, id), eq(byokCredentials.accountId, caller.accountId));

  const findOwned = async (caller: Caller, id: string): Promise<ByokCredentialRow> => {
    if (!UUID.test(id)) throw new NotFoundError();
    const [row] = await database.db.select().from(byokCredentials).where(owned(caller, id));
    if (!row) throw new NotFoundError();
    return row;
  };

  const checkHashes = async (caller: Caller, hashes: readonly string[] | null | undefined) => {
    if (!hashes) return;
    const live = await liveKeyHashes(database, caller.accountId, hashes);
    enforce(() => checkKeyHashes(hashes, live));
  };

  const sealed = async (id: string, material: ProviderKeyMaterial) => ({
    ...(await vault.seal(material, id)),
    label: maskProviderKey(material.apiKey),
    keyRegion: material.region,
  });

  const changed = async (accountId: string) => database.changes.publish({ kind: 'byok', accountId });

  return {
    async create(caller, input) {
      if (deps.isKnownProvider && !deps.isKnownProvider(input.provider)) {
        throw new BadRequestError(`provider ${input.provider} is not a provider of this gateway (GET /models lists them)`);
      }
      const id = randomUUID();
      const material = enforce(() => parseProviderKey(input.provider, input.key));
      const flags = { isFallback: input.is_fallback ?? false, isByokOnly: input.is_byok_only ?? false, isRequired: input.is_required ?? false };
      enforce(() => checkFlags(flags));
      const declaredRegion = enforce(() =>
        resolveDeclaredRegion({ provider: input.provider, keyRegion: material.region, keyChanged: true, stored: null, requested: input.declared_region }),
      );
      // Keys are workspace-scoped (POST /keys issues into the caller's workspace), so a credential follows its
      // creator's workspace rather than the account's default one.
      let workspaceId = caller.workspaceId;
      if (input.workspace_id !== undefined && input.workspace_id !== caller.workspaceId) {
        const [workspace] = await database.db
          .select({ id: workspaces.id })
          .from(workspaces)
          .where(and(eq(workspaces.id, input.workspace_id), eq(workspaces.accountId, caller.accountId)));
        if (!workspace) throw new BadRequestError('workspace_id is not a workspace of this account');
        workspaceId = workspace.id;
      }
      await checkHashes(caller, input.allowed_api_key_hashes);
      const [row] = await database.db
        .insert(byokCredentials)
        .values({
          id,
          accountId: caller.accountId,
          workspaceId,
          provider: input.provider,
          name: input.name ?? null,
          ...(await sealed(id, material)),
          disabled: input.disabled ?? false,
          ...flags,
          sortOrder: input.sort_order ?? 0,
          allowedApiKeyHashes: input.allowed_api_key_hashes ?? null,
          allowedModels: input.allowed_models ?? null,
          allowedUserIds: input.allowed_user_ids ?? null,
          declaredRegion,
          declaredZdr: input.declared_zdr ?? null,
        })
        .returning();
      if (!row) throw new Error('createByokCredential: the insert returned no row');
      await changed(caller.accountId);
      return toByokCredential(row);
    },

    async list(caller, query) {
      const conditions = [eq(byokCredentials.accountId, caller.accountId)];
      if (query.provider !== undefined) conditions.push(eq(byokCredentials.provider, query.provider));
      const empty = { data: [], total: 0, offset: query.offset, limit: query.limit, next_cursor: null };
      if (query.workspaceId !== undefined) {
        if (!UUID.test(query.workspaceId)) return empty;
        conditions.push(eq(byokCredentials.workspaceId, query.workspaceId));
      }
      const where = and(...conditions);
      const { cursor } = query;
      const after = cursor && afterPosition([
        { column: byokCredentials.provider, value: cursor.provider },
        { column: byokCredentials.sortOrder, value: cursor.sortOrder },
        { column: byokCredentials.createdAt, value: timeValue(cursor.createdAt) },
        { column: byokCredentials.id, value: cursor.id },
      ]);
      // One row more than the page tells whether a next page exists.
      const rows = await database.db
        .select({ ...getTableColumns(byokCredentials), positionTime: createdAtText(byokCredentials.createdAt) })
        .from(byokCredentials)
        .where(after ? and(where, after) : where)
        .orderBy(asc(byokCredentials.provider), asc(byokCredentials.sortOrder), asc(byokCredentials.createdAt), asc(byokCredentials.id))
        .offset(cursor ? 0 : query.offset)
        .limit(query.limit + 1);
      const [totals] = await database.db.select({ total: count() }).from(byokCredentials).where(where);
      const { page, lastBeforeMore: last } = splitPage(rows, query.limit);
      const next = last ? deps.cursors.encode('byok', caller.accountId, { createdAt: last.positionTime, id: last.id, provider: last.provider, sortOrder: last.sortOrder }) : null;
      return { data: page.map(({ positionTime: _, ...row }) => toByokCredential(row)), total: totals?.total ?? 0, offset: cursor ? 0 : query.offset, limit: query.limit, next_cursor: next };
    },

    async get(caller, id) {
      return toByokCredential(await findOwned(caller, id));
    },

    async update(caller, id, patch) {
      const row = await findOwned(caller, id);
      const newKey = patch.key;
      const material = newKey === undefined ? undefined : enforce(() => parseProviderKey(row.provider, newKey));
      const flags = {
        isFallback: patch.is_fallback ?? row.isFallback,
        isByokOnly: patch.is_byok_only ?? row.isByokOnly,
        isRequired: patch.is_required ?? row.isRequired,
      };
      enforce(() => checkFlags(flags));
      const declaredRegion = enforce(() =>
        resolveDeclaredRegion({
          provider: row.provider,
          keyRegion: material ? material.region : (row.keyRegion ?? null),
          keyChanged: material !== undefined,
          stored: row.declaredRegion,
          requested: patch.declared_region,
        }),
      );
      await checkHashes(caller, patch.allowed_api_key_hashes);
      if (Object.keys(patch).length === 0) return toByokCredential(row);

      const [updated] = await database.db
        .update(byokCredentials)
        .set({
          ...(material ? await sealed(row.id, material) : {}),
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
          ...(patch.allowed_api_key_hashes !== undefined ? { allowedApiKeyHashes: patch.allowed_api_key_hashes } : {}),
          ...(patch.allowed_models !== undefined ? { allowedModels: patch.allowed_models } : {}),
          ...(patch.allowed_user_ids !== undefined ? { allowedUserIds: patch.allowed_user_ids } : {}),
          ...(patch.declared_zdr !== undefined ? { declaredZdr: patch.declared_zdr } : {}),
          ...flags,
          declaredRegion,
          version: row.version + 1,
          updatedAt: new Date(),
        })
        .where(and(owned(caller, id), eq(byokCredentials.version, row.version)))
        .returning();
      if (!updated) {
        // Deleted meanwhile: as absent as it now is. Otherwise another change won the race.
        await findOwned(caller, id);
        throw new ConflictError();
      }
      await changed(caller.accountId);
      return toByokCredential(updated);
    },

    async remove(caller, id) {
      if (!UUID.test(id)) throw new NotFoundError();
      const deleted = await database.db.delete(byokCredentials).where(owned(caller, id)).returning({ id: byokCredentials.id });
      if (deleted.length === 0) throw new NotFoundError();
      await changed(caller.accountId);
    },
  };
}
