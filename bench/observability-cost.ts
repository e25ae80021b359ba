/**
 * `node bench/observability-cost.ts [records|otlp|both] [generations] [pglite|postgres]`: the CPU one
 * generation adds with records on and one OTLP/protobuf destination (sampling 1), measured in this process
 * alone, as process CPU time, so a busy machine disturbs it far less than the load rows of `npm run bench`.
 * Generation records go through the real record queue and batch insert (PGlite in a temporary data
 * directory, or a fresh database on DATABASE_URL's server with `postgres`), spans through the real broadcaster
 * and OpenTelemetry exporter to a receiver in a child process on 127.0.0.1. Generations arrive 100 a tick;
 * the figure is total CPU over generations, measured three times after a warm-up of 20,000 generations. The
 * script runs with the gateway's own Node flags (it re-executes itself with them, as `switchboard serve` does): PGlite's cost
 * depends on them (`--liftoff-only` keeps its WebAssembly on V8's baseline tier). `npm run bench` runs it
 * (bench/observability-run.ts) and judges issue 11's aim by it.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '#src/store/database.ts';
import { insertGenerations } from '#src/observability/generation-store.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { RecordQueue } from '#src/observability/record-queue.ts';
import { createBroadcaster } from '#src/observability/broadcast/broadcaster.ts';
import { createDestinationNetwork } from '#src/observability/destinations/destination-address.ts';
import { createLogger } from '#src/logger.ts';
import { ensureRuntimeSettings } from '#src/serve/runtime-settings.ts';
import { RESULT_PREFIX } from './observability-run.ts';
import { benchGeneration } from './bench-generation.ts';

ensureRuntimeSettings();

const mode = process.argv[2] ?? 'both';
const count = Number(process.argv[3] ?? 10_000);
const driver = process.argv[4] ?? 'pglite';
const directory = mkdtempSync(join(tmpdir(), 'switchboard-observability-cost-'));

// The receiver: takes each export, answers an empty success.
const receiverScript = join(directory, 'receiver.cjs');
writeFileSync(receiverScript, `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.writeHead(200,{'content-type':'application/x-protobuf','content-length':0}).end())}).listen(0,'127.0.0.1',function(){process.send(this.address().port)})`);
const receiver = fork(receiverScript);
const port = await new Promise<number>((resolve) => receiver.once('message', (message) => resolve(message as number)));

let dropDatabase = async () => {};
let databaseUrl: string | undefined;
if (driver === 'postgres') {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('postgres needs DATABASE_URL');
  const name = `switchboard_cost_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  };
}
const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: join(directory, 'data') });
const account = await initAccount(database, { name: 'cost' });
const logger = createLogger({ level: 'warn' });
let written = 0;
let sent = 0;
const queue = new RecordQueue(
  (records) => insertGenerations(database, records),
  { limit: 1e6, batchSize: 500, flushIntervalMs: 1000, retryBaseMs: 1000, maxBackoffMs: 30_000, writeTimeoutMs: 15_000 },
  logger,
  { written: (added) => (written += added), dropped: () => {} },
);
queue.start();
const network = createDestinationNetwork([{ kind: 'cidr', range: '127.0.0.1/32' }]);
const broadcaster = createBroadcaster(
  { queueLimit: 1e6, timeoutMs: 5000, retryBaseMs: 100, retries: 0, version: 'bench', network },
  { sent: (_kind, added) => (sent += added), dropped: (kind, reason, dropped) => console.error(`dropped ${dropped} (${kind}, ${reason})`) },
  logger,
);
const destination = {
  id: 'bench',
  name: 'bench',
  kind: 'otlp',
  endpoint: `http://127.0.0.1:${port}/v1/traces`,
  protocol: 'http/protobuf',
  publicKey: null,
  secrets: { headers: {}, secretKey: null, signingSecret: null },
  samplingRate: 1,
  includeContent: false,
  revision: '1',
} as unknown as ActiveDestination;
broadcaster.sync([destination]);

const generation = () => benchGeneration({ accountId: account.account_id, workspaceId: account.workspace_id, keyHash: account.api_key_hash });

async function measure(total: number): Promise<number> {
  const items = Array.from({ length: total }, generation);
  const writtenBefore = written;
  const sentBefore = sent;
  const before = process.cpuUsage();
  for (let index = 0; index < total; index += 100) {
    for (const item of items.slice(index, index + 100)) {
      if (mode !== 'otlp') queue.add(item.record);
      if (mode !== 'records') broadcaster.offer(item, [destination]);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  while ((mode !== 'otlp' && written < writtenBefore + total) || (mode !== 'records' && sent < sentBefore + total)) await new Promise((resolve) => setTimeout(resolve, 20));
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / total;
}

try {
  // A gateway that has served for a while runs the record and span code optimised. After 3,000 generations V8
  // had not finished: the first measured round read 18-25 µs where the next two read 12-17 (otlp destination).
  await measure(20_000);
  const figures: number[] = [];
  for (let round = 0; round < 3; round += 1) figures.push(await measure(count));
  console.log(`${mode} on ${driver}: ${figures.map((figure) => figure.toFixed(1)).join(', ')} µs CPU per generation (${count} a round)`);
  // The line `npm run bench` reads (bench/observability-run.ts).
  console.log(`${RESULT_PREFIX}${JSON.stringify({ mode, driver, generations: count, microsPerGeneration: figures })}`);
} finally {
  await broadcaster.close(1_000);
  await queue.close(1000);
  await database.close();
  await dropDatabase();
  receiver.kill();
  rmSync(directory, { recursive: true, force: true });
}
