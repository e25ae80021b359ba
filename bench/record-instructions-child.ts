/**
 * The measured side of bench/record-instructions.ts, run under valgrind: PGlite in a temporary data directory
 * (or a fresh database on DATABASE_URL's server, dropped at the end), records like bench/observability-cost.ts's written by `insertGenerations` in batches. It tells its parent
 * when a round is about to start (the parent switches instrumentation on, then answers `go`) and how many
 * records the round wrote.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '#src/store/database.ts';
import { insertGenerations } from '#src/observability/generation-store.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { benchGeneration } from './bench-generation.ts';

/** What one child run measures. */
export interface ChildOptions {
  directory: string;
  records: number;
  warmup: number;
  batch: number;
  rounds: number;
  database: 'pglite' | 'postgres';
}

/** A new database on DATABASE_URL's server, and how to drop it. */
async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('--database postgres needs DATABASE_URL');
  const name = `switchboard_records_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

const nextMessage = () => new Promise<unknown>((resolve) => process.once('message', resolve));

/** Opens the database, warms up, then writes `rounds` measured rounds of records. */
export async function runChild(options: ChildOptions): Promise<void> {
  const server = options.database === 'postgres' ? await freshPostgres() : undefined;
  const database = await openDatabase(server ? { databaseUrl: server.url } : { dataDir: join(options.directory, 'data') });
  // Under valgrind on a busy machine a new connection can take longer than the pool's 5 s connection timeout:
  // the pool keeps the connections it has (node-postgres closes one idle for 10 s, as it can be between rounds).
  const pool = (database.db as unknown as { $client?: { options?: { idleTimeoutMillis?: number } } }).$client;
  if (server && pool?.options) pool.options.idleTimeoutMillis = 0;
  const account = await initAccount(database, { name: 'records' });
  const record = (): GenerationRecord => benchGeneration({ accountId: account.account_id, workspaceId: account.workspace_id, keyHash: account.api_key_hash }).record;
  // The batches are built before a round starts, so only their writing is counted.
  const batches = (total: number) => {
    const records = Array.from({ length: total }, record);
    return Array.from({ length: Math.ceil(total / options.batch) }, (_unused, index) => records.slice(index * options.batch, (index + 1) * options.batch));
  };
  for (const batch of batches(options.warmup)) await insertGenerations(database, batch);
  for (let round = 0; round < options.rounds; round += 1) {
    const measured = batches(options.records);
    const go = nextMessage();
    process.send?.({ ready: true });
    await go;
    for (const batch of measured) await insertGenerations(database, batch);
    // The parent answers once instrumentation is off again, so building the next round is not counted.
    const next = nextMessage();
    process.send?.({ measured: options.records });
    await next;
  }
  await database.close();
  await server?.drop();
  process.disconnect?.();
}
