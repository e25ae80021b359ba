/**
 * Creating accounts: an account always comes with its default workspace. `initAccount` is `switchboard init`:
 * an account with one management key and one inference key. `seedBootstrapManagementKey` makes the key an
 * operator put in `SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY` work on the first start (containers).
 */
import { eq, TransactionRollbackError } from '#src/store/drizzle.ts';
import type { Database, Db } from '#src/store/database.ts';
import { accounts, apiKeys, workspaces } from '#src/store/schema.ts';
import { hashApiKey, suppliedKeyProblem } from '#src/keys/api-key.ts';
import { issueApiKey } from '#src/keys/key-service.ts';

/** The name of the workspace created with every account. */
export const DEFAULT_WORKSPACE_NAME = 'default';

/** Creates an account and its default workspace in one transaction. */
export async function createAccount(database: Database, options: { name: string }): Promise<{ accountId: string; workspaceId: string }> {
  return database.db.transaction((transaction) => insertAccount(transaction, options.name));
}

async function insertAccount(transaction: Db, name: string): Promise<{ accountId: string; workspaceId: string }> {
  const [account] = await transaction.insert(accounts).values({ name }).returning({ id: accounts.id });
  if (!account) throw new Error('createAccount: the insert returned no row');
  const [workspace] = await transaction
    .insert(workspaces)
    .values({ accountId: account.id, name: DEFAULT_WORKSPACE_NAME, isDefault: true })
    .returning({ id: workspaces.id });
  if (!workspace) throw new Error('createAccount: the workspace insert returned no row');
  return { accountId: account.id, workspaceId: workspace.id };
}

/** What `switchboard init` prints: the raw keys appear here once and are never retrievable again. */
export interface InitializedAccount {
  account_id: string;
  workspace_id: string;
  management_key: string;
  api_key: string;
  api_key_hash: string;
}

/** Creates an account with its default workspace, one management key and one inference key. */
export async function initAccount(database: Database, options: { name: string }): Promise<InitializedAccount> {
  const { accountId, workspaceId } = await createAccount(database, options);
  const management = await issueApiKey(database, { accountId, workspaceId, kind: 'management', name: 'init: management' });
  const inference = await issueApiKey(database, { accountId, workspaceId, kind: 'inference', name: 'init: inference' });
  return {
    account_id: accountId,
    workspace_id: workspaceId,
    management_key: management.key,
    api_key: inference.key,
    api_key_hash: inference.hash,
  };
}

/**
 * Seeds `rawKey` as the management key of a new account named `accountName`, unless a key with its hash already
 * exists (live or revoked: a revoked bootstrap key stays revoked across restarts). Instances starting at once on
 * one PostgreSQL race on the key's primary key: the loser rolls back its account. Returns whether it seeded.
 */
export async function seedBootstrapManagementKey(database: Database, options: { rawKey: string; accountName?: string }): Promise<boolean> {
  const problem = suppliedKeyProblem(options.rawKey);
  if (problem) throw new Error(`SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY ${problem}`);
  const hash = hashApiKey(options.rawKey);
  const [existing] = await database.db.select({ hash: apiKeys.hash }).from(apiKeys).where(eq(apiKeys.hash, hash));
  if (existing) return false;
  const seeded = await database.db.transaction(async (transaction) => {
    const { accountId, workspaceId } = await insertAccount(transaction, options.accountName ?? 'default');
    const inserted = await transaction
      .insert(apiKeys)
      .values({ hash, accountId, workspaceId, kind: 'management', name: 'bootstrap' })
      .onConflictDoNothing()
      .returning({ hash: apiKeys.hash });
    if (inserted.length === 0) transaction.rollback();
    return true;
  }).catch((error: unknown) => {
    if (error instanceof TransactionRollbackError) return false;
    throw error;
  });
  if (seeded) await database.changes.publish({ kind: 'api-key', hash });
  return seeded;
}
