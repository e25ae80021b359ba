/**
 * The credential read path of `/messages` routing: an account's credentials from memory, reloaded only after a
 * change to that account's credentials. Changes on this instance invalidate directly; on PostgreSQL, changes
 * on other instances arrive through the change feed (LISTEN/NOTIFY), and while that feed is down every read
 * goes to the database. While the database is unreachable, an account's credentials are served as last read. The cached entries hold the sealed envelope, never a decrypted key: `revealKey` decrypts one key, in memory, for the attempt about to call its provider.
 */
import { eq } from '#src/store/drizzle.ts';
import { CredentialUnavailableError, DatabaseUnavailableError } from '#src/errors.ts';
import type { Database } from '#src/store/database.ts';
import { DatabaseAvailability } from '#src/store/database-availability.ts';
import { byokCredentials, type ByokCredentialRow } from '#src/store/schema.ts';
import type { PlanCredential } from '#src/routing/plan-types.ts';
import type { KeyVault, ProviderKeyMaterial, SealedKey } from '#src/byok/key-vault.ts';
import type { CredentialSource } from '#src/routing/plan-request.ts';
import type { ProviderKey } from '#src/providers/provider-adapter.ts';
import { toPlanCredential } from '#src/byok/credential-view.ts';

/**
 * What routing reads (the planner's {@link CredentialSource}): `forAccount` gives the account's credentials,
 * every provider, disabled ones included (the planner filters); `revealKey` decrypts one credential's provider
 * key. Only the code about to send the key to its provider calls it; never log, return or keep the result.
 */
export interface RoutingCredentials extends CredentialSource {
  /** Number of loads that reached the database (tests, metrics). */
  databaseLookups(): number;
  close(): void;
}

/** The adapter's form of a key: a plain string, or the object form when the key names a region. */
export function toProviderKey(material: ProviderKeyMaterial): ProviderKey {
  return material.region === null ? material.apiKey : { api_key: material.apiKey, region: material.region };
}

interface AccountEntry {
  plans: readonly PlanCredential[];
  sealed: ReadonlyMap<string, SealedKey>;
  /** The feed epoch it was read in: an older entry is revalidated before it is trusted. */
  epoch: number;
}

/** Creates the cached read path; `maxAccounts` bounds memory (oldest account evicted first). */
export function createRoutingCredentials(deps: { database: Database; vault: KeyVault; maxAccounts?: number; availability?: DatabaseAvailability }): RoutingCredentials {
  const { database, vault } = deps;
  const maxAccounts = deps.maxAccounts ?? 10_000;
  const availability = deps.availability ?? new DatabaseAvailability();
  const entries = new Map<string, AccountEntry>();
  let generation = 0;
  // Bumped when the feed reconnects (notifications may have been missed): entries are revalidated on use.
  let epoch = 0;
  let lookups = 0;

  const unsubscribe = database.changes.subscribe((event) => {
    if (event.kind === 'api-key') return;
    generation += 1;
    if (event.kind === 'byok') entries.delete(event.accountId);
    else if (event.kind === 'reset') epoch += 1;
  });

  // The entry the cache answers with, or undefined when the database has to be read.
  const cachedEntry = (accountId: string): AccountEntry | undefined => {
    const cached = entries.get(accountId);
    if (cached && cached.epoch === epoch && database.changes.reliable()) return cached;
    // The database was unreachable a moment ago: serve the credentials as last read.
    if (cached && availability.isDown()) return cached;
    return undefined;
  };

  const load = async (accountId: string): Promise<AccountEntry> => {
    const hit = cachedEntry(accountId);
    if (hit) return hit;
    const cached = entries.get(accountId);
    const startedAt = generation;
    lookups += 1;
    let rows: ByokCredentialRow[];
    try {
      rows = await database.db.select().from(byokCredentials).where(eq(byokCredentials.accountId, accountId));
      availability.succeeded();
    } catch (error) {
      if (!availability.failed(error)) throw error;
      if (cached) return cached;
      throw new DatabaseUnavailableError({ cause: error });
    }
    const entry: AccountEntry = {
      plans: rows.map(toPlanCredential),
      sealed: new Map(rows.map((row) => [row.id, { keyCiphertext: row.keyCiphertext, wrappedDataKey: row.wrappedDataKey, masterKeyId: row.masterKeyId }])),
      epoch,
    };
    // A change that arrived while we read may not be in what we read: use it once, do not keep it.
    if (startedAt === generation) {
      if (entries.size >= maxAccounts && !entries.has(accountId)) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(accountId, entry);
    }
    return entry;
  };

  return {
    // Both run on every request: a cached account is read without a call to the async `load`.
    forAccount: async (accountId) => (cachedEntry(accountId) ?? (await load(accountId))).plans,
    revealKey: async (accountId, credentialId) => {
      const sealed = (cachedEntry(accountId) ?? (await load(accountId))).sealed.get(credentialId);
      // Deleted since the plan chose it: the attempt fails and the runner moves on to the next one.
      if (!sealed) throw new CredentialUnavailableError(credentialId);
      return toProviderKey(await vault.open(sealed, credentialId));
    },
    databaseLookups: () => lookups,
    close: unsubscribe,
  };
}
