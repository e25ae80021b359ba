/**
 * The per-request key check, answered from memory once warm. Known keys stay cached until the change feed
 * says otherwise: a revocation or issue on this instance invalidates at once, one on another instance sharing
 * PostgreSQL arrives by LISTEN/NOTIFY within milliseconds. We chose notifications over a TTL-based version check
 * because a revoked key must stop working now, not after a TTL, and NOTIFY costs nothing per request. While
 * the listener connection is down the feed is unreliable and every lookup goes to the database.
 * Unknown keys are remembered briefly (negative cache) so random keys cannot turn into one query each.
 */
import type { Caller, KeyAuthenticator } from '#src/http/caller.ts';
import type { Database } from '#src/store/database.ts';
import { hashApiKey } from '#src/keys/api-key.ts';
import { findLiveKey } from '#src/keys/key-service.ts';

/** Tuning of the key cache. */
export interface KeyCacheOptions {
  /** Most cached keys (known and unknown together); the oldest entry goes first. */
  maxEntries?: number;
  /** How long an unknown key is remembered as unknown. */
  negativeTtlMs?: number;
  now?: () => number;
}

interface Entry {
  caller: Caller | undefined;
  /** Only negative entries expire. */
  expiresAt: number;
}

/** A key authenticator with its cache; `close` unsubscribes from the change feed. */
export interface CachedKeyAuthenticator {
  authenticate: KeyAuthenticator;
  /** Number of lookups that reached the database (for tests and metrics). */
  databaseLookups(): number;
  close(): void;
}

/** Creates the cached key authenticator for a database. */
export function createKeyAuthenticator(database: Database, options: KeyCacheOptions = {}): CachedKeyAuthenticator {
  const maxEntries = options.maxEntries ?? 50_000;
  const negativeTtlMs = options.negativeTtlMs ?? 2_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  // Bumped by every invalidation: a lookup that started before one must not cache what it read.
  let generation = 0;
  let lookups = 0;

  const unsubscribe = database.changes.subscribe((event) => {
    generation += 1;
    if (event.kind === 'api-key') entries.delete(event.hash);
    else if (event.kind === 'reset') entries.clear();
  });

  const remember = (hash: string, entry: Entry) => {
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(hash, entry);
  };

  const authenticate: KeyAuthenticator = async (rawKey) => {
    const hash = hashApiKey(rawKey);
    const cached = entries.get(hash);
    if (cached && database.changes.reliable() && (cached.caller || cached.expiresAt > now())) return cached.caller;
    const startedAt = generation;
    lookups += 1;
    const row = await findLiveKey(database, hash);
    const caller: Caller | undefined = row ? { accountId: row.accountId, workspaceId: row.workspaceId, keyHash: row.hash, kind: row.kind } : undefined;
    if (startedAt === generation) remember(hash, { caller, expiresAt: caller ? Number.POSITIVE_INFINITY : now() + negativeTtlMs });
    return caller;
  };

  return { authenticate, databaseLookups: () => lookups, close: unsubscribe };
}
