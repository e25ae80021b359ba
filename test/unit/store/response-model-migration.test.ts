/**
 * Migration 0008 (`generations.response_model`) on PGlite and PostgreSQL: a database at 0007 holding a record
 * is brought up to date with the record kept (its `response_model` null), and a failing migration run leaves
 * the database as it was (no column, no migration row, the record intact), so the next start applies it whole.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadNodePostgres, loadPglite } from '#src/store/drizzle.ts';
import { applyMigrations, MIGRATIONS_FOLDER, type MigrationTarget } from '#src/store/migrate.ts';
import { testDrivers, type TestDatabaseDriver } from '#test/helpers/test-database.ts';

/** A copy of the migrations up to `upTo`; `breakLast` makes that one fail after its statements. */
function migrationsCopy(options: { upTo: string; breakLast?: boolean }): string {
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-migrations-'));
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((entry) => entry.tag === options.upTo);
  expect(end).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, end + 1);
  writeFileSync(journalFile, JSON.stringify(journal));
  if (options.breakLast) appendFileSync(join(folder, `${options.upTo}.sql`), '\n--> statement-breakpoint\nSELECT 1 / 0;');
  return folder;
}

interface RawDatabase {
  target: MigrationTarget;
  query(text: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function openRaw(driver: TestDatabaseDriver): Promise<RawDatabase> {
  if (driver === 'pglite') {
    const { PGlite, drizzlePglite } = loadPglite();
    const client = new PGlite();
    return { target: { driver, db: drizzlePglite({ client }) }, query: async (text) => (await client.query<Record<string, unknown>>(text)).rows, close: () => client.close() };
  }
  const adminUrl = process.env.DATABASE_URL as string;
  const name = `switchboard_migration_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const { drizzleNodePostgres } = loadNodePostgres();
  return {
    target: { driver, db: drizzleNodePostgres({ client: pool }), pool },
    query: async (text) => (await pool.query(text)).rows as Record<string, unknown>[],
    close: async () => {
      await pool.end();
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(testDrivers())('migration 0008: generations.response_model (%s)', (driver) => {
  it('upgrades a 0007 database with its records kept; a failed run changes nothing', async () => {
    const upTo0007 = migrationsCopy({ upTo: '0007_usage_estimated' });
    const broken = migrationsCopy({ upTo: '0008_response_model', breakLast: true });
    cleanups.push(() => rmSync(upTo0007, { recursive: true, force: true }), () => rmSync(broken, { recursive: true, force: true }));
    const database = await openRaw(driver);
    cleanups.push(() => database.close());

    await applyMigrations(database.target, upTo0007);
    const id = 'gen_0mwwoigezQm9vYmFyYmF6cXV';
    await database.query(
      `insert into generations (id, account_id, workspace_id, key_hash, created_at, requested_model, model, stream, status, http_status, total_ms, attempts) values ('${id}', '${randomUUID()}', '${randomUUID()}', 'hash', now(), 'test/m', 'test/m', false, 'success', 200, 5, '[]')`,
    );
    const columns = async () => (await database.query(`select column_name from information_schema.columns where table_name = 'generations' and column_name = 'response_model'`)).length;
    const applied = async () => Number((await database.query('select count(*)::int as count from drizzle.__drizzle_migrations'))[0]?.count);
    expect(await columns()).toBe(0);
    expect(await applied()).toBe(8);

    await expect(applyMigrations(database.target, broken)).rejects.toThrow();
    expect(await columns()).toBe(0);
    expect(await applied()).toBe(8);

    await applyMigrations(database.target);
    expect(await columns()).toBe(1);
    expect(await applied()).toBeGreaterThanOrEqual(9);
    expect(await database.query(`select id, model, response_model from generations`)).toEqual([{ id, model: 'test/m', response_model: null }]);
  }, 120_000);
});
