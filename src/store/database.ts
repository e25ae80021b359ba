/**
 * Opens the gateway's database: PostgreSQL when a connection string is given, else PGlite (PostgreSQL in
 * WASM) in a data directory. Either way the result is one drizzle query layer over the same schema, with the
 * migrations applied, and a change feed for in-process caches.
 */
import { mkdirSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { loadNodePostgres, loadPglite } from '#src/store/drizzle.ts';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from '#src/store/schema.ts';
import { acquireDataDirectoryLock, type DataDirectoryLock } from '#src/store/data-dir-lock.ts';
import { createLocalChangeFeed, createPostgresChangeFeed, type ChangeFeed } from '#src/store/change-feed.ts';
import { applyMigrations } from '#src/store/migrate.ts';
import { releasePgliteFileBundle } from '#src/store/pglite-file-bundle.ts';
import { scrubPassword, withoutPassword } from '#src/config-urls.ts';

/** The drizzle query layer, identical for both drivers. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database. */
export interface Database {
  db: Db;
  driver: 'pglite' | 'postgres';
  /** The PGlite data directory; undefined on PostgreSQL. */
  dataDir: string | undefined;
  changes: ChangeFeed;
  /**
   * Loads a binary `COPY` file (PostgreSQL's format) into a table in one statement. On PGlite it costs far less
   * CPU per row than an INSERT or a CSV COPY, which matters because PGlite's work is the gateway's own CPU; on
   * PostgreSQL it spares the gateway the JSON text of the batch and the server parsing it.
   */
  copyBinary: (table: string, columns: readonly string[], file: Uint8Array) => Promise<void>;
  close(): Promise<void>;
}

/** Where the data lives. `databaseUrl` wins over `dataDir`. */
export interface DatabaseOptions {
  /** PGlite data directory (default `SWITCHBOARD_DATA_DIR` or `./.switchboard`). */
  dataDir?: string;
  /** PostgreSQL connection string. */
  databaseUrl?: string;
  /** Who holds the PGlite data directory, shown to a second process that is refused: `gateway`, `cli`. */
  purpose?: string;
  /** A PGlite `dumpDataDir` archive to start from (tests clone a migrated template this way). */
  loadDataDir?: Blob;
  /** Reports a failure of the PostgreSQL change listener (it reconnects by itself). */
  onBackgroundError?: (error: unknown) => void;
}

/** The default PGlite data directory. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.SWITCHBOARD_DATA_DIR ?? './.switchboard');
}

/** Opens (and migrates) the database the options name. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openPglite(resolve(options.dataDir ?? defaultDataDir()), options);
}

/**
 * PostgreSQL's memory settings inside PGlite, on top of PGlite's own start parameters. Its defaults are sized
 * for a server (shared_buffers 160 MB, which PGlite's single process touches at start): they made the
 * embedded database the largest part of the gateway's memory. The gateway's tables are small and its hot reads
 * are cached in process, so a few megabytes of buffers lose nothing (bench/JOURNAL.md). PGlite is one
 * single-user session: sizing the per-backend shared structures (lock table, process array) for one connection
 * instead of 100 takes 4 MB off its resident memory and still leaves locks for a transaction creating hundreds
 * of tables; with no connection slots to share, none is reserved for superusers.
 */
export const PGLITE_MEMORY_SETTINGS: readonly string[] = [
  'shared_buffers=2MB',
  'wal_buffers=256kB',
  'temp_buffers=1MB',
  'work_mem=2MB',
  'maintenance_work_mem=8MB',
  'max_connections=1',
  'superuser_reserved_connections=0',
];

/** PGlite's start parameters: its own defaults, then the memory settings above. */
export function pgliteStartParams(defaults: readonly string[]): string[] {
  return [...defaults, ...PGLITE_MEMORY_SETTINGS.flatMap((setting) => ['-c', setting])];
}

async function openPglite(dataDir: string, options: DatabaseOptions): Promise<Database> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock: DataDirectoryLock = acquireDataDirectoryLock(dataDir, options.purpose ?? 'gateway');
  const { PGlite: PGliteClass, drizzlePglite } = loadPglite();
  let client: PGlite | undefined;
  try {
    client = new PGliteClass({
      dataDir: `${dataDir}/pgdata`,
      startParams: pgliteStartParams(PGliteClass.defaultStartParams),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    await client.waitReady;
    const db = drizzlePglite({ client, schema });
    await applyMigrations({ driver: 'pglite', db });
    releasePgliteFileBundle(client);
    const changes = createLocalChangeFeed();
    const opened = client;
    let copies = 0;
    return {
      db,
      driver: 'pglite',
      dataDir,
      changes,
      copyBinary: async (table, columns, file) => {
        // The file goes into PGlite's in-memory file system (read back with one copy per chunk), not through
        // its `/dev/blob` device: that one copies a Blob twice before PostgreSQL reads it, then byte by byte in
        // JavaScript (about 7% of a record's instructions, callgrind).
        const path = `/tmp/switchboard-copy-${(copies += 1)}`;
        const { FS } = opened.Module;
        FS.writeFile(path, file);
        try {
          const list = columns.map((column) => `"${column}"`).join(', ');
          await opened.query(`copy "${table}" (${list}) from '${path}' with (format binary)`);
        } finally {
          FS.unlink(path);
        }
      },
      close: async () => {
        await changes.close();
        await opened.close();
        lock.release();
      },
    };
  } catch (error) {
    await client?.close().catch(() => {});
    lock.release();
    throw error;
  }
}

async function openPostgres(databaseUrl: string, options: DatabaseOptions): Promise<Database> {
  const { pg, drizzleNodePostgres, copyFrom } = loadNodePostgres();
  // A database that stops answering (a partition, not a refusal) must fail a connection attempt in seconds, so
  // the key and credential caches can serve what they last read (src/store/database-availability.ts).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000, keepAlive: true });
  // An idle client's connection error would otherwise crash the process; the next query reports it.
  pool.on('error', (error) => options.onBackgroundError?.(error));
  try {
    const db = drizzleNodePostgres({ client: pool, schema });
    await applyMigrations({ driver: 'postgres', db, pool });
    const changes = await createPostgresChangeFeed(pool, { onError: options.onBackgroundError });
    return {
      db,
      driver: 'postgres',
      dataDir: undefined,
      changes,
      copyBinary: async (table, columns, file) => {
        const client = await pool.connect();
        // A checked-out client reports a lost connection as an 'error' event, which would end the process
        // unheard (pool.query listens for its own queries; a COPY's client is ours). The COPY fails with it.
        let lost: Error | undefined;
        const onError = (error: Error) => (lost = error);
        client.on('error', onError);
        let failed = false;
        try {
          const list = columns.map((column) => `"${column}"`).join(', ');
          const copy = client.query(copyFrom(`copy "${table}" (${list}) from stdin with (format binary)`));
          const done = finished(copy);
          copy.end(file);
          await done;
          if (lost) throw lost;
        } catch (error) {
          failed = true;
          throw error;
        } finally {
          client.off('error', onError);
          // After a failed COPY (a refused row, a terminated backend, a cut connection) the connection is
          // closed rather than trusted again: a refused batch is rare, a reconnect cheap.
          client.release(failed);
        }
      },
      close: async () => {
        await changes.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end().catch(() => {});
    // The driver's message says what failed ("connect ECONNREFUSED …", "role … does not exist"), not where.
    const where = withoutPassword(databaseUrl);
    const message = scrubPassword(error instanceof Error ? error.message : String(error), databaseUrl);
    throw new Error(`DATABASE_URL${where === null ? '' : ` (${where})`}: PostgreSQL could not be opened: ${message}`, { cause: error });
  }
}
