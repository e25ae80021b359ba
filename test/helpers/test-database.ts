/**
 * A fresh, migrated database per test file. PGlite: the first open (initdb plus migrations) takes seconds, so a
 * migrated template is built once per machine and migration set (a tar in the temp directory) and each test
 * database is a clone of it in its own data directory. PostgreSQL (when DATABASE_URL is set): a new database
 * per test file, dropped afterwards.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPglite } from '#src/store/drizzle.ts';
import pg from 'pg';
import { openDatabase, type Database } from '#src/store/database.ts';
import { applyMigrations, MIGRATIONS_FOLDER } from '#src/store/migrate.ts';

/** Which engine a test database runs on. */
export type TestDatabaseDriver = 'pglite' | 'postgres';

/** A database for one test file; `drop` closes and removes it. */
export interface TestDatabase {
  database: Database;
  driver: TestDatabaseDriver;
  /** PGlite: the data directory. */
  dataDir: string | undefined;
  /** PostgreSQL: the connection string of the per-file database. */
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

/**
 * The drivers a suite should run on: PGlite always, PostgreSQL when DATABASE_URL is set. In CI (CI=true) a
 * missing DATABASE_URL is an error, never a silent skip.
 */
export function testDrivers(): TestDatabaseDriver[] {
  if (process.env.DATABASE_URL) return ['pglite', 'postgres'];
  if (process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set: the PostgreSQL tests must run in CI');
  return ['pglite'];
}

function migrationsFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  walk(MIGRATIONS_FOLDER);
  return hash.digest('hex').slice(0, 16);
}

async function pgliteTemplate(): Promise<Blob> {
  const file = join(tmpdir(), `switchboard-pglite-template-${migrationsFingerprint()}.tar`);
  if (!existsSync(file)) {
    const { PGlite, drizzlePglite } = loadPglite();
    const client = new PGlite();
    await applyMigrations({ driver: 'pglite', db: drizzlePglite({ client }) });
    const dump = await client.dumpDataDir('none');
    await client.close();
    // Written aside and renamed: parallel workers building at once never read a half-written template.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  }
  return new Blob([readFileSync(file)]);
}

async function openPgliteTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-db-'));
  const database = await openDatabase({ dataDir, purpose: 'test', loadDataDir: await pgliteTemplate() });
  return {
    database,
    driver: 'pglite',
    dataDir,
    databaseUrl: undefined,
    drop: async () => {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPostgresTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is not set');
  const name = `switchboard_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  return {
    database,
    driver: 'postgres',
    dataDir: undefined,
    databaseUrl: url.toString(),
    drop: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** Opens a fresh migrated database on the driver. */
export async function openTestDatabase(driver: TestDatabaseDriver = 'pglite'): Promise<TestDatabase> {
  return driver === 'postgres' ? openPostgresTestDatabase() : openPgliteTestDatabase();
}
