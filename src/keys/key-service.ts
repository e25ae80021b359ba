/**
 * Issuing, listing, changing and revoking gateway API keys of one account. The raw key exists only in the
 * return value of {@link issueApiKey}; the database holds its SHA-256. Every change is published on the change
 * feed, so key caches of every instance drop what they knew about the key (its limits included).
 */
import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, ne, sql } from '#src/store/drizzle.ts';
import { afterPosition, createdAtText, splitPage, timeValue } from '#src/store/keyset.ts';
import type { ListPage, ListPosition } from '#src/http/list-cursor.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { BadRequestError, ConflictError, NotFoundError } from '#src/errors.ts';
import type { Database } from '#src/store/database.ts';
import { accounts, apiKeys, workspaces, type ApiKeyRow } from '#src/store/schema.ts';
import { generateRawApiKey, hashApiKey, type ApiKeyKind } from '#src/keys/api-key.ts';
import { keyLimitsOf } from '#src/limits/key-limits.ts';
import type { KeyUsageReader } from '#src/limits/key-usage.ts';
import type { ApiKey, ApiKeyPatch, CreatedApiKey } from '#src/api-types.ts';

/** A key as stored, on the wire: everything but its usage. */
export type StoredApiKey = Omit<ApiKey, 'usage'>;

/** The limit fields of the wire (`POST /keys`, `PATCH /keys/{hash}`). */
export type KeyLimitFields = Pick<ApiKeyPatch, 'limit' | 'limit_reset' | 'requests_per_minute' | 'tokens_per_minute' | 'max_concurrent_streams'>;

/** The wire form of a stored key (never the raw key), without its usage. */
export function toApiKey(row: ApiKeyRow): StoredApiKey {
  return {
    hash: row.hash,
    name: row.name,
    kind: row.kind,
    workspace_id: row.workspaceId,
    created_at: row.createdAt.toISOString(),
    limit: row.creditLimit,
    limit_reset: row.limitReset,
    requests_per_minute: row.requestsPerMinute,
    tokens_per_minute: row.tokensPerMinute,
    max_concurrent_streams: row.maxConcurrentStreams,
  };
}

/** The columns the wire's limit fields set; an omitted field is left out (unchanged on update). */
function limitColumns(fields: KeyLimitFields): Partial<Pick<ApiKeyRow, 'creditLimit' | 'limitReset' | 'requestsPerMinute' | 'tokensPerMinute' | 'maxConcurrentStreams'>> {
  return {
    ...(fields.limit !== undefined ? { creditLimit: fields.limit } : {}),
    ...(fields.limit_reset !== undefined ? { limitReset: fields.limit_reset } : {}),
    ...(fields.requests_per_minute !== undefined ? { requestsPerMinute: fields.requests_per_minute } : {}),
    ...(fields.tokens_per_minute !== undefined ? { tokensPerMinute: fields.tokens_per_minute } : {}),
    ...(fields.max_concurrent_streams !== undefined ? { maxConcurrentStreams: fields.max_concurrent_streams } : {}),
  };
}

/** Limits mean nothing on a management key (it cannot call `/messages`): setting one is a client mistake. */
function assertLimitsFit(kind: ApiKeyKind, fields: KeyLimitFields): void {
  const set = Object.entries(limitColumns(fields)).filter(([, value]) => value !== null);
  if (kind === 'management' && set.length > 0) throw new BadRequestError('limits apply to inference keys only; this is a management key');
}

/** The account's default workspace, or NotFoundError when the account does not exist. */
export async function defaultWorkspaceOf(database: Database, accountId: string): Promise<string> {
  const [workspace] = await database.db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.accountId, accountId), eq(workspaces.isDefault, true)))
    .limit(1);
  if (!workspace) throw new NotFoundError();
  return workspace.id;
}

/**
 * Issues a key of `kind` in the account (and workspace: the default one when omitted). `rawKey` is only for
 * operator-supplied keys (the bootstrap key); otherwise a random one is generated.
 */
export async function issueApiKey(
  database: Database,
  options: { accountId: string; workspaceId?: string; kind: ApiKeyKind; name?: string | null; rawKey?: string; limits?: KeyLimitFields },
): Promise<CreatedApiKey> {
  assertLimitsFit(options.kind, options.limits ?? {});
  const workspaceId = options.workspaceId ?? (await defaultWorkspaceOf(database, options.accountId));
  const rawKey = options.rawKey ?? generateRawApiKey();
  const [row] = await database.db
    .insert(apiKeys)
    .values({ hash: hashApiKey(rawKey), accountId: options.accountId, workspaceId, kind: options.kind, name: options.name ?? null, ...limitColumns(options.limits ?? {}) })
    .returning();
  if (!row) throw new Error('issueApiKey: the insert returned no row');
  // A negative cache entry for this hash (someone tried it before it existed) must go.
  await database.changes.publish({ kind: 'api-key', hash: row.hash });
  return { key: rawKey, ...toApiKey(row) };
}

/** Adds each key's usage; without a reader (the CLI) the usage is read from the database's ledger alone. */
async function withUsage(rows: readonly ApiKeyRow[], usage: KeyUsageReader): Promise<ApiKey[]> {
  const usages = await usage.usageOf(rows.map((row) => ({ hash: row.hash, limitReset: row.limitReset, limits: keyLimitsOf(row) })));
  return rows.map((row) => {
    const found = usages.get(row.hash);
    if (!found) throw new Error(`no usage was read for key ${row.hash}`);
    return { ...toApiKey(row), usage: found };
  });
}

/**
 * One page of the account's live keys, newest first (creation time descending, then hash), with their usage,
 * after `page.cursor` or at `page.offset`; `nextPosition` (the last key's, where the next page starts) is null on the last page.
 */
export async function listApiKeys(
  database: Database,
  accountId: string,
  page: ListPage,
  usage: KeyUsageReader,
): Promise<{ keys: ApiKey[]; total: number; nextPosition: ListPosition | null }> {
  const live = and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt));
  const { cursor } = page;
  const after = cursor && afterPosition([
    { column: apiKeys.createdAt, value: timeValue(cursor.createdAt), descending: true },
    { column: apiKeys.hash, value: cursor.id },
  ]);
  const rows = await database.db
    .select({ ...getTableColumns(apiKeys), positionTime: createdAtText(apiKeys.createdAt) })
    .from(apiKeys)
    .where(after ? and(live, after) : live)
    .orderBy(desc(apiKeys.createdAt), asc(apiKeys.hash))
    .offset(cursor ? 0 : page.offset)
    .limit(page.limit + 1);
  const [totals] = await database.db.select({ total: count() }).from(apiKeys).where(live);
  const { page: shown, lastBeforeMore: last } = splitPage(rows, page.limit);
  return {
    keys: await withUsage(shown.map(({ positionTime: _, ...row }) => row), usage),
    total: totals?.total ?? 0,
    nextPosition: last ? { createdAt: last.positionTime, id: last.hash } : null,
  };
}

/**
 * Changes the name or limits of a live key of the account: NotFoundError for an unknown, revoked or foreign
 * key; BadRequestError for a limit on a management key. Published on the change feed, so every instance
 * applies the new limits from its next request.
 */
export async function updateApiKey(database: Database, accountId: string, hash: string, patch: ApiKeyPatch, usage: KeyUsageReader): Promise<ApiKey> {
  const [key] = await database.db
    .select({ kind: apiKeys.kind })
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, hash), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
  if (!key) throw new NotFoundError();
  assertLimitsFit(key.kind, patch);
  const [row] = await database.db
    .update(apiKeys)
    .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), ...limitColumns(patch) })
    .where(and(eq(apiKeys.hash, hash), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .returning();
  // Revoked between the two statements.
  if (!row) throw new NotFoundError();
  await database.changes.publish({ kind: 'api-key', hash });
  const [updated] = await withUsage([row], usage);
  return updated as ApiKey;
}

/** What a client is told when it would revoke its account's last live management key. */
export const LAST_MANAGEMENT_KEY_MESSAGE = 'Cannot revoke the last active management key of this account; issue another management key first';

/**
 * Revokes a live key of the account: NotFoundError for an unknown, revoked or foreign key; ConflictError for
 * the account's last live management key (nobody could manage the account any more). The check and the
 * update run in one transaction holding the account's row, so revocations of one account are serialized:
 * two racing revocations of its last two management keys cannot both see the other key still live.
 */
export async function revokeApiKey(database: Database, accountId: string, hash: string): Promise<void> {
  await database.db.transaction(async (transaction) => {
    await transaction.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
    const [key] = await transaction
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, hash), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
    if (!key) throw new NotFoundError();
    if (key.kind === 'management') {
      const [others] = await transaction
        .select({ total: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, 'management'), isNull(apiKeys.revokedAt), ne(apiKeys.hash, hash)));
      if ((others?.total ?? 0) === 0) {
        throw new ConflictError(LAST_MANAGEMENT_KEY_MESSAGE);
      }
    }
    await transaction.update(apiKeys).set({ revokedAt: sql`now()` }).where(eq(apiKeys.hash, hash));
  });
  await database.changes.publish({ kind: 'api-key', hash });
}

/** Which of `hashes` are live keys of the account. */
export async function liveKeyHashes(database: Database, accountId: string, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await database.db
    .select({ hash: apiKeys.hash })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt), inArray(apiKeys.hash, [...hashes])));
  return new Set(rows.map((row) => row.hash));
}

/** The live key with this hash, or undefined (unknown or revoked). */
export async function findLiveKey(database: Database, hash: string): Promise<ApiKeyRow | undefined> {
  const [row] = await database.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

/** The operations behind `/keys`, bound to one database. */
export interface KeyService {
  issue(options: { accountId: string; workspaceId?: string; kind: ApiKeyKind; name?: string | null; limits?: KeyLimitFields }): Promise<CreatedApiKey>;
  list(accountId: string, page: ListPage): Promise<{ keys: ApiKey[]; total: number; nextCursor: string | null }>;
  update(accountId: string, hash: string, patch: ApiKeyPatch): Promise<ApiKey>;
  revoke(accountId: string, hash: string): Promise<void>;
}

/**
 * Creates the key service over a database; `usage` reads the usage shown with each key, `cursors` binds a
 * page's `next_cursor` to the caller's account.
 */
export function createKeyService(database: Database, usage: KeyUsageReader, cursors: CursorBinder): KeyService {
  return {
    issue: (options) => issueApiKey(database, options),
    list: async (accountId, page) => {
      const { nextPosition, ...listed } = await listApiKeys(database, accountId, page, usage);
      return { ...listed, nextCursor: nextPosition ? cursors.encode('keys', accountId, nextPosition) : null };
    },
    update: (accountId, hash, patch) => updateApiKey(database, accountId, hash, patch, usage),
    revoke: (accountId, hash) => revokeApiKey(database, accountId, hash),
  };
}
