/**
 * Broadcast destinations of an account's workspaces: create, list, read, change, delete. Like BYOK
 * credentials, every operation is scoped to the caller's account (another account's destination is a 404),
 * secrets are sealed by the key vault and never returned, and updates are optimistic (409 on a lost race).
 * After every change the directory is refreshed, so the next generation already goes where it should.
 */
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, getTableColumns, type SQL } from '#src/store/drizzle.ts';
import { afterPosition, createdAtText, splitPage, timeValue } from '#src/store/keyset.ts';
import type { ListPage } from '#src/http/list-cursor.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { BadRequestError, ConflictError, NotFoundError } from '#src/errors.ts';
import type { Caller } from '#src/http/caller.ts';
import type { Database } from '#src/store/database.ts';
import { observabilityDestinations, workspaces, type ObservabilityDestinationRow } from '#src/store/schema.ts';
import type { KeyVault } from '#src/byok/key-vault.ts';
import { maskProviderKey } from '#src/byok/mask-key.ts';
import type {
  ObservabilityDestination,
  ObservabilityDestinationCreate,
  ObservabilityDestinationPage,
  ObservabilityDestinationPatch,
} from '#src/api-types.ts';
import { checkCredentialFollowsEndpoint, checkFieldsOfKind, checkHeaderNames, checkRequiredSecrets, checkUserInfo, DestinationRuleViolation } from '#src/observability/destinations/destination-rules.ts';
import { openPlainDestinationSecrets, sealDestinationSecrets, type PlainDestinationSecrets } from '#src/observability/destinations/destination-secrets.ts';
import { toDestinationView } from '#src/observability/destinations/destination-view.ts';
import { carriesRedactedValue, joinEndpoint, REDACTED_VALUE, redactEndpoint, splitEndpoint, type SplitEndpoint } from '#src/observability/destinations/endpoint-query.ts';

/** The operations behind `/observability/destinations`. */
export interface DestinationService {
  create(caller: Caller, input: ObservabilityDestinationCreate): Promise<ObservabilityDestination>;
  list(caller: Caller, page: ListPage): Promise<ObservabilityDestinationPage>;
  get(caller: Caller, id: string): Promise<ObservabilityDestination>;
  update(caller: Caller, id: string, patch: ObservabilityDestinationPatch): Promise<ObservabilityDestination>;
  remove(caller: Caller, id: string): Promise<void>;
  /** Seals the query and user-info of every endpoint stored in clear (written before they were sealed); how many. */
  sealClearEndpoints(): Promise<number>;
}

/** What the service works with. */
export interface DestinationServiceDeps {
  database: Database;
  vault: KeyVault;
  /** Makes the account-bound `next_cursor` of a page. */
  cursors: CursorBinder;
  /** Called after a change committed: refreshes this instance and tells the others. */
  changed(): Promise<void>;
  /** Why an endpoint may not be used (a non-public address the gateway does not allow), or null. */
  endpointProblem(endpoint: string): string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REDACTED_IN_ENDPOINT = 'endpoint carries *** as a query value, user name or password, the form responses show a stored value in; give the real value, or leave endpoint out to keep the stored one';

function enforce(rules: () => void): void {
  try {
    rules();
  } catch (error) {
    if (error instanceof DestinationRuleViolation) throw new BadRequestError(error.reason);
    throw error;
  }
}

/** The masked label of the secret a kind shows a hint of. */
function secretLabelOf(secrets: PlainDestinationSecrets): string | null {
  const secret = secrets.secret_key ?? secrets.signing_secret;
  return secret === undefined ? null : maskProviderKey(secret);
}

/** The sealed columns and the non-secret facts derived from the secrets. */
async function sealedColumns(vault: KeyVault, id: string, secrets: PlainDestinationSecrets) {
  const sealed = await sealDestinationSecrets(vault, id, secrets);
  return {
    secretCiphertext: sealed.keyCiphertext,
    wrappedDataKey: sealed.wrappedDataKey,
    masterKeyId: sealed.masterKeyId,
    headerNames: Object.keys(secrets.headers ?? {}).map((name) => name.toLowerCase()).sort(),
    secretLabel: secretLabelOf(secrets),
  };
}

/** The sealed parts of an endpoint, each only when it has one. */
function endpointSecrets(tail: string | undefined, userInfo: string | undefined): Pick<PlainDestinationSecrets, 'endpoint_tail' | 'endpoint_user_info'> {
  return { ...(tail === undefined ? {} : { endpoint_tail: tail }), ...(userInfo === undefined ? {} : { endpoint_user_info: userInfo }) };
}

// The user-info of a stored endpoint when it is in clear: `***` is how a sealed one is shown.
function clearUserInfo(endpoint: SplitEndpoint): string | null {
  return endpoint.userInfo === REDACTED_VALUE ? null : endpoint.userInfo;
}

// Whether a stored endpoint holds a secret part in clear (written before that part was sealed).
function inClear(endpoint: SplitEndpoint): boolean {
  return endpoint.tail !== null || clearUserInfo(endpoint) !== null;
}

function secretsOf(input: ObservabilityDestinationCreate | ObservabilityDestinationPatch): PlainDestinationSecrets {
  return {
    ...(input.headers !== undefined ? { headers: input.headers } : {}),
    ...(input.secret_key !== undefined ? { secret_key: input.secret_key } : {}),
    ...(input.signing_secret !== undefined ? { signing_secret: input.signing_secret } : {}),
  };
}

/** Creates the destination service. */
export function createDestinationService(deps: DestinationServiceDeps): DestinationService {
  const { database, vault } = deps;
  const checkEndpoint = (endpoint: string): void => {
    const problem = deps.endpointProblem(endpoint);
    if (problem) throw new DestinationRuleViolation(problem);
    if (carriesRedactedValue(endpoint)) throw new DestinationRuleViolation(REDACTED_IN_ENDPOINT);
  };
  const owned = (caller: Caller, id: string): SQL | undefined => and(eq(observabilityDestinations.id, id), eq(observabilityDestinations.accountId, caller.accountId));

  const findOwned = async (caller: Caller, id: string): Promise<ObservabilityDestinationRow> => {
    if (!UUID.test(id)) throw new NotFoundError();
    const [row] = await database.db.select().from(observabilityDestinations).where(owned(caller, id));
    if (!row) throw new NotFoundError();
    return row;
  };

  const workspaceOf = async (caller: Caller, requested: string | undefined): Promise<string> => {
    if (requested === undefined || requested === caller.workspaceId) return caller.workspaceId;
    const [workspace] = await database.db
      .select({ id: workspaces.id })
      .from(workspaces)
      .where(and(eq(workspaces.id, requested), eq(workspaces.accountId, caller.accountId)));
    if (!workspace) throw new BadRequestError('workspace_id is not a workspace of this account');
    return workspace.id;
  };

  return {
    async create(caller, input) {
      enforce(() => {
        checkFieldsOfKind(input.kind, input);
        checkRequiredSecrets(input.kind, input);
        checkHeaderNames(input.headers);
        checkEndpoint(input.endpoint);
        checkUserInfo(input.kind, input.endpoint, input.headers);
      });
      const id = randomUUID();
      const workspaceId = await workspaceOf(caller, input.workspace_id);
      const endpoint = splitEndpoint(input.endpoint);
      const [row] = await database.db
        .insert(observabilityDestinations)
        .values({
          id,
          accountId: caller.accountId,
          workspaceId,
          name: input.name,
          kind: input.kind,
          endpoint: endpoint.shown,
          protocol: input.kind === 'otlp' ? (input.protocol ?? 'http/protobuf') : null,
          publicKey: input.public_key ?? null,
          ...(await sealedColumns(vault, id, { ...secretsOf(input), ...endpointSecrets(endpoint.tail ?? undefined, endpoint.userInfo ?? undefined) })),
          samplingRate: input.sampling_rate ?? 1,
          includeContent: input.include_content ?? false,
          disabled: input.disabled ?? false,
        })
        .returning();
      if (!row) throw new Error('createDestination: the insert returned no row');
      await deps.changed();
      return toDestinationView(row);
    },

    async list(caller, page) {
      const where = eq(observabilityDestinations.accountId, caller.accountId);
      const { cursor } = page;
      const after = cursor && afterPosition([
        { column: observabilityDestinations.createdAt, value: timeValue(cursor.createdAt) },
        { column: observabilityDestinations.id, value: cursor.id },
      ]);
      const rows = await database.db
        .select({ ...getTableColumns(observabilityDestinations), positionTime: createdAtText(observabilityDestinations.createdAt) })
        .from(observabilityDestinations)
        .where(after ? and(where, after) : where)
        .orderBy(asc(observabilityDestinations.createdAt), asc(observabilityDestinations.id))
        .offset(cursor ? 0 : page.offset)
        .limit(page.limit + 1);
      const [totals] = await database.db.select({ total: count() }).from(observabilityDestinations).where(where);
      const { page: shown, lastBeforeMore: last } = splitPage(rows, page.limit);
      return {
        data: shown.map(({ positionTime: _, ...row }) => toDestinationView(row)),
        total: totals?.total ?? 0,
        offset: page.offset,
        limit: page.limit,
        next_cursor: last ? deps.cursors.encode('destinations', caller.accountId, { createdAt: last.positionTime, id: last.id }) : null,
      };
    },

    async get(caller, id) {
      return toDestinationView(await findOwned(caller, id));
    },

    async update(caller, id, given) {
      const row = await findOwned(caller, id);
      // The endpoint as a read showed it (its query values as ***), sent back with other changes, is no change.
      const { endpoint: shownEndpoint, ...others } = given;
      const patch: ObservabilityDestinationPatch = shownEndpoint === redactEndpoint(row.endpoint) ? others : given;
      enforce(() => {
        checkFieldsOfKind(row.kind, patch);
        checkHeaderNames(patch.headers);
        if (patch.endpoint === undefined && patch.headers === undefined) return;
        if (patch.endpoint !== undefined) checkEndpoint(patch.endpoint);
        const stored = openPlainDestinationSecrets(vault, row.id, { keyCiphertext: row.secretCiphertext, wrappedDataKey: row.wrappedDataKey, masterKeyId: row.masterKeyId });
        // The destination as it would be: a new endpoint's user-info beside the stored headers, or new headers beside the stored user-info.
        checkUserInfo(row.kind, patch.endpoint ?? joinEndpoint(row.endpoint, stored.endpoint_tail, stored.endpoint_user_info), patch.headers ?? stored.headers);
        const hasSentCredential = Object.keys(stored.headers ?? {}).length > 0 || stored.secret_key !== undefined;
        checkCredentialFollowsEndpoint(row.kind, row.endpoint, patch, hasSentCredential);
      });
      if (Object.keys(patch).length === 0) return toDestinationView(row);
      const changedSecrets = secretsOf(patch);
      const endpoint = patch.endpoint === undefined ? undefined : splitEndpoint(patch.endpoint);
      let resealed = {};
      if (Object.keys(changedSecrets).length > 0 || endpoint !== undefined) {
        const { endpoint_tail: storedTail, endpoint_user_info: storedUserInfo, ...stored } = openPlainDestinationSecrets(vault, row.id, { keyCiphertext: row.secretCiphertext, wrappedDataKey: row.wrappedDataKey, masterKeyId: row.masterKeyId });
        // A new endpoint replaces the stored one whole, its user-info and query included.
        const kept = endpoint === undefined ? endpointSecrets(storedTail, storedUserInfo) : endpointSecrets(endpoint.tail ?? undefined, endpoint.userInfo ?? undefined);
        resealed = await sealedColumns(vault, row.id, { ...stored, ...changedSecrets, ...kept });
      }
      const [updated] = await database.db
        .update(observabilityDestinations)
        .set({
          ...resealed,
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(endpoint !== undefined ? { endpoint: endpoint.shown } : {}),
          ...(patch.protocol !== undefined ? { protocol: patch.protocol } : {}),
          ...(patch.public_key !== undefined ? { publicKey: patch.public_key } : {}),
          ...(patch.sampling_rate !== undefined ? { samplingRate: patch.sampling_rate } : {}),
          ...(patch.include_content !== undefined ? { includeContent: patch.include_content } : {}),
          ...(patch.disabled !== undefined ? { disabled: patch.disabled } : {}),
          version: row.version + 1,
          updatedAt: new Date(),
        })
        .where(and(owned(caller, id), eq(observabilityDestinations.version, row.version)))
        .returning();
      if (!updated) {
        await findOwned(caller, id);
        throw new ConflictError();
      }
      await deps.changed();
      return toDestinationView(updated);
    },

    async sealClearEndpoints() {
      const candidates = await database.db.select({ id: observabilityDestinations.id, endpoint: observabilityDestinations.endpoint }).from(observabilityDestinations);
      let sealed = 0;
      for (const candidate of candidates) {
        if (!inClear(splitEndpoint(candidate.endpoint))) continue;
        const [row] = await database.db.select().from(observabilityDestinations).where(eq(observabilityDestinations.id, candidate.id));
        const endpoint = row && splitEndpoint(row.endpoint);
        if (!row || !endpoint || !inClear(endpoint)) continue;
        let stored: PlainDestinationSecrets;
        try {
          stored = openPlainDestinationSecrets(vault, row.id, { keyCiphertext: row.secretCiphertext, wrappedDataKey: row.wrappedDataKey, masterKeyId: row.masterKeyId });
        } catch {
          // Unusable as it is (the directory says so); the other rows are still sealed.
          continue;
        }
        // The version guard: another instance sealing (or a client changing) the row at the same time wins.
        const updated = await database.db
          .update(observabilityDestinations)
          // Each part found in clear is sealed; a part already sealed (the tail of a row whose user-info was not) stays.
          .set({ ...(await sealedColumns(vault, row.id, { ...stored, ...endpointSecrets(endpoint.tail ?? stored.endpoint_tail, clearUserInfo(endpoint) ?? stored.endpoint_user_info) })), endpoint: endpoint.shown, version: row.version + 1 })
          .where(and(eq(observabilityDestinations.id, row.id), eq(observabilityDestinations.version, row.version)))
          .returning({ id: observabilityDestinations.id });
        sealed += updated.length;
      }
      return sealed;
    },

    async remove(caller, id) {
      if (!UUID.test(id)) throw new NotFoundError();
      const deleted = await database.db.delete(observabilityDestinations).where(owned(caller, id)).returning({ id: observabilityDestinations.id });
      if (deleted.length === 0) throw new NotFoundError();
      await deps.changed();
    },
  };
}
