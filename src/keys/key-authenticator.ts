/**
 * The per-request key check, answered from memory once warm. Known keys stay cached until the change feed
 * says otherwise: a revocation or change on this instance invalidates at once, one on another instance
 * sharing PostgreSQL arrives by LISTEN/NOTIFY within milliseconds. We chose notifications over a TTL-based
 * version check because a revoked key must stop working now, not after a TTL, and NOTIFY costs nothing per
 * request. While the listener connection is down the feed is unreliable and lookups revalidate against the
 * database; when the feed reconnects (notifications may have been missed) every entry is revalidated on its
 * next use. While the database itself is unreachable, known keys are served from what was last read
 * (inference goes on; a key revoked during the outage cannot be, and one revoked just before it on another
 * instance works until the database is back), and an unknown key answers 503.
 * Unknown keys are remembered briefly (negative cache) so random keys cannot turn into one query each.
 */
import type { Caller, KeyAuthenticator } from '#src/http/caller.ts';
import { DatabaseUnavailableError } from '#src/errors.ts';
import type { Database } from '#src/store/database.ts';
import { DatabaseAvailability } from '#src/store/database-availability.ts';
import { hashApiKey } from '#src/keys/api-key.ts';
import { findLiveKey } from '#src/keys/key-service.ts';
import { keyLimitsOf } from '#src/limits/key-limits.ts';

/** Tuning of the key cache. */
export interface KeyCacheOptions {
  /** Most cached keys (known and unknown together); the oldest entry goes first. */
  maxEntries?: number;
  /** How long an unknown key is remembered as unknown. */
  negativeTtlMs?: number;
  now?: () => number;
  /** Shared with the other caches of the same database. */
  availability?: DatabaseAvailability;
}

interface Entry {
  caller: Caller | undefined;
  /** Only negative entries expire. */
  expiresAt: number;
  /** The feed epoch the entry was read in: an older one is revalidated before it is trusted. */
  epoch: number;
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
  const availability = options.availability ?? new DatabaseAvailability({ now });
  const entries = new Map<string, Entry>();
  // Bumped by every invalidation: a lookup that started before one must not cache what it read.
  let generation = 0;
  // Bumped when the feed reconnects: every entry read before is revalidated on its next use.
  let epoch = 0;
  let lookups = 0;

  const unsubscribe = database.changes.subscribe((event) => {
    generation += 1;
    if (event.kind === 'api-key') entries.delete(event.hash);
    else if (event.kind === 'reset') epoch += 1;
  });

  const remember = (hash: string, entry: Entry) => {
    if (entries.size >= maxEntries && !entries.has(hash)) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(hash, entry);
  };

  // A key the cache answers is answered without a promise: the request goes on in the same turn.
  const authenticate: KeyAuthenticator = (rawKey) => {
    const hash = hashApiKey(rawKey);
    const cached = entries.get(hash);
    const fresh = cached !== undefined && cached.epoch === epoch && database.changes.reliable();
    if (cached && fresh && (cached.caller || cached.expiresAt > now())) return cached.caller;
    // The database was unreachable a moment ago: a known key is served as last read.
    if (cached?.caller && availability.isDown()) return cached.caller;
    return lookUp(hash, cached);
  };

  const lookUp = async (hash: string, cached: Entry | undefined): Promise<Caller | undefined> => {
    const startedAt = generation;
    lookups += 1;
    let row: Awaited<ReturnType<typeof findLiveKey>>;
    try {
      row = await findLiveKey(database, hash);
      availability.succeeded();
    } catch (error) {
      if (!availability.failed(error)) throw error;
      if (cached?.caller) return cached.caller;
      throw new DatabaseUnavailableError({ cause: error });
    }
    const caller: Caller | undefined = row
      ? { accountId: row.accountId, workspaceId: row.workspaceId, keyHash: row.hash, kind: row.kind, limits: keyLimitsOf(row) }
      : undefined;
    if (startedAt === generation) remember(hash, { caller, expiresAt: caller ? Number.POSITIVE_INFINITY : now() + negativeTtlMs, epoch });
    return caller;
  };

  return { authenticate, databaseLookups: () => lookups, close: unsubscribe };
}
