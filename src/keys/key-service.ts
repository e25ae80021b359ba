/**
 * Issuing, listing and revoking gateway API keys of one account. The raw key exists only in the return value
 * of {@link issueApiKey}; the database holds its SHA-256. Every change is published on the change feed, so
 * key caches of every instance drop what they knew about the key.
 */
import { and, count, desc, eq, inArray, isNull, ne, sql } from '#src/store/drizzle.ts';
import { BadRequestError, NotFoundError } from '#src/errors.ts';
import type { Database } from '#src/store/database.ts';
import { accounts, apiKeys, workspaces, type ApiKeyRow } from '#src/store/schema.ts';
import { generateRawApiKey, hashApiKey, type ApiKeyKind } from '#src/keys/api-key.ts';
import type { ApiKey, CreatedApiKey } from '#src/api-types.ts';

/** The wire form of a stored key (never the raw key). */
export function toApiKey(row: ApiKeyRow): ApiKey {
  return { hash: row.hash, name: row.name, kind: row.kind, workspace_id: row.workspaceId, created_at: row.createdAt.toISOString() };
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
  options: { accountId: string; workspaceId?: string; kind: ApiKeyKind; name?: string | null; rawKey?: string },
): Promise<CreatedApiKey> {
  const workspaceId = options.workspaceId ?? (await defaultWorkspaceOf(database, options.accountId));
  const rawKey = options.rawKey ?? generateRawApiKey();
  const [row] = await database.db
    .insert(apiKeys)
    .values({ hash: hashApiKey(rawKey), accountId: options.accountId, workspaceId, kind: options.kind, name: options.name ?? null })
    .returning();
  if (!row) throw new Error('issueApiKey: the insert returned no row');
  // A negative cache entry for this hash (someone tried it before it existed) must go.
  await database.changes.publish({ kind: 'api-key', hash: row.hash });
  return { key: rawKey, ...toApiKey(row) };
}

/** One page of the account's live keys, newest first. */
export async function listApiKeys(
  database: Database,
  accountId: string,
  page: { offset: number; limit: number },
): Promise<{ keys: ApiKey[]; total: number }> {
  const live = and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt));
  const rows = await database.db
    .select()
    .from(apiKeys)
    .where(live)
    .orderBy(desc(apiKeys.createdAt), apiKeys.hash)
    .offset(page.offset)
    .limit(page.limit);
  const [totals] = await database.db.select({ total: count() }).from(apiKeys).where(live);
  return { keys: rows.map(toApiKey), total: totals?.total ?? 0 };
}

/**
 * Revokes a live key of the account: NotFoundError for an unknown, revoked or foreign key; BadRequestError for
 * the account's last live management key (nobody could manage the account any more). Revocations of one
 * account are serialized on its row, so two racing revocations cannot remove the last two management keys.
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
        throw new BadRequestError("cannot revoke the account's last live management key; issue another one first");
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
  issue(options: { accountId: string; workspaceId?: string; kind: ApiKeyKind; name?: string | null }): Promise<CreatedApiKey>;
  list(accountId: string, page: { offset: number; limit: number }): Promise<{ keys: ApiKey[]; total: number }>;
  revoke(accountId: string, hash: string): Promise<void>;
}

/** Creates the key service over a database. */
export function createKeyService(database: Database): KeyService {
  return {
    issue: (options) => issueApiKey(database, options),
    list: (accountId, page) => listApiKeys(database, accountId, page),
    revoke: (accountId, hash) => revokeApiKey(database, accountId, hash),
  };
}
