/**
 * Everything the credential half of the gateway needs, opened in the right order: the master key (refusing to
 * start on PostgreSQL without one, before connecting), the database with its migrations, the bootstrap
 * management key, and the services and caches built on them. The server and the CLI both start here.
 */
import { count, ne } from '#src/store/drizzle.ts';
import type { Logger } from '#src/logger.ts';
import { openDatabase, type Database } from '#src/store/database.ts';
import { DatabaseAvailability } from '#src/store/database-availability.ts';
import { byokCredentials } from '#src/store/schema.ts';
import { loadMasterKey } from '#src/byok/master-key.ts';
import { createKeyVault, type KeyVault } from '#src/byok/key-vault.ts';
import { createCursorBinder, type CursorBinder } from '#src/http/cursor-binding.ts';
import { createByokService, type ByokService } from '#src/byok/byok-service.ts';
import { createRoutingCredentials, type RoutingCredentials } from '#src/byok/routing-credentials.ts';
import { createKeyAuthenticator, type CachedKeyAuthenticator } from '#src/keys/key-authenticator.ts';
import { createKeyService, type KeyService } from '#src/keys/key-service.ts';
import { seedBootstrapManagementKey } from '#src/keys/accounts.ts';
import { createKeyUsageReader } from '#src/limits/key-usage.ts';
import { readSpend } from '#src/limits/spend-ledger.ts';

/** Where the data lives and which secrets protect it (the matching fields of the gateway's Config). */
export interface CredentialStackOptions extends CredentialSecrets {
  dataDir: string;
  databaseUrl?: string | undefined;
  /** Who holds the PGlite data directory: `gateway` or `cli`. */
  purpose?: string;
  /** A PGlite archive to start from (test templates). */
  loadDataDir?: Blob;
}

/** The opened credential half: services for the routes, the authenticator, the routing read path. */
export interface CredentialStack {
  database: Database;
  vault: KeyVault;
  /** Binds the lists' cursors to an account, keyed by the master key (every instance shares it). */
  cursors: CursorBinder;
  byok: ByokService;
  keys: KeyService;
  authenticator: CachedKeyAuthenticator;
  routingCredentials: RoutingCredentials;
  close(): Promise<void>;
}

/** The secrets and seed of the credential half (the matching fields of the gateway's Config). */
export interface CredentialSecrets {
  masterKey?: string | undefined;
  bootstrapManagementKey?: string | undefined;
  logger?: Logger | undefined;
  /** True for a provider slug the gateway can route to (the catalog's); any slug is accepted when omitted. */
  isKnownProvider?: ((slug: string) => boolean) | undefined;
}

/**
 * Builds the credential half on an open database: loads (or, embedded, generates) the master key, seeds the
 * bootstrap management key, and creates the services and caches. `close` stops the caches; the database stays
 * open (its opener closes it).
 */
export async function createCredentialStack(database: Database, options: CredentialSecrets): Promise<CredentialStack> {
  const masterKey = loadMasterKey({ masterKey: options.masterKey, dataDir: database.dataDir, driver: database.driver });
  if (masterKey.source === 'data-dir-generated') {
    options.logger?.info('generated a master key for provider-key encryption in the data directory', { data_dir: database.dataDir });
  }
  const [foreign] = await database.db.select({ total: count() }).from(byokCredentials).where(ne(byokCredentials.masterKeyId, masterKey.id));
  if (foreign && foreign.total > 0) {
    options.logger?.warn('some provider credentials were encrypted under another master key and cannot be used', {
      credentials: foreign.total,
      master_key_id: masterKey.id,
    });
  }
  if (options.bootstrapManagementKey) {
    const seeded = await seedBootstrapManagementKey(database, { rawKey: options.bootstrapManagementKey });
    if (seeded) options.logger?.info('seeded the bootstrap management key (SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY)');
  }
  const vault = createKeyVault(masterKey);
  const cursors = createCursorBinder(masterKey.key);
  // One view of the database's reachability: both caches serve what they last read while it is away.
  const availability = new DatabaseAvailability();
  const authenticator = createKeyAuthenticator(database, { availability });
  const routingCredentials = createRoutingCredentials({ database, vault, availability });
  return {
    database,
    vault,
    cursors,
    byok: createByokService({ database, vault, cursors, ...(options.isKnownProvider ? { isKnownProvider: options.isKnownProvider } : {}) }),
    // The gateway gives its routes a key service reading live usage (src/server.ts); this one reads the database.
    keys: createKeyService(database, createKeyUsageReader({ ledger: { spendOf: (hashes, period) => readSpend(database, hashes, period) } }), cursors),
    authenticator,
    routingCredentials,
    close: async () => {
      authenticator.close();
      routingCredentials.close();
    },
  };
}

/**
 * Opens the database and builds the credential half on it; `close` also closes the database. Throws a message
 * meant for the operator when the master key is missing (PostgreSQL: before connecting) or the data directory
 * is in use.
 */
export async function openCredentialStack(options: CredentialStackOptions): Promise<CredentialStack> {
  if (options.databaseUrl) loadMasterKey({ masterKey: options.masterKey, driver: 'postgres' });
  const database = await openDatabase({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    purpose: options.purpose ?? 'gateway',
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    onBackgroundError: (error) => options.logger?.warn('database background connection failed', { error }),
  });
  try {
    const stack = await createCredentialStack(database, options);
    return {
      ...stack,
      close: async () => {
        await stack.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
