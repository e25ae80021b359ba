/**
 * `node bench/instructions.ts [--requests 1000] [--connections 4] [--warmup 30] [--database pglite|postgres]
 * [--modes json,stream] [--flush-ms 600000] [--gateway-flags a,b] [--callgrind-flags "…"] [--keep-dumps]`:
 * the instructions the gateway and the pass-through floor each execute per request, counted by valgrind's
 * callgrind over a fixed number of requests after a warm-up. Unlike CPU time, an instruction count does not
 * move with what else the machine is doing, so two commits (or the gateway and the floor) compare within a
 * percent or two on a busy shared VM where `npm run bench`'s time ratios swing by a third. It is slow (each
 * target runs under valgrind) and reads instructions, not time: a cache miss or a system call costs one
 * instruction here. Needs valgrind (Debian's `valgrind` package).
 *
 * Each target starts under `valgrind --tool=callgrind --instr-atstart=no` (JIT code included:
 * `--smc-check=all-non-file`); the load generator's warm-up runs uninstrumented, and instrumentation is
 * switched on (`callgrind_control`) for exactly the measured requests, then dumped and read back. What is
 * left is mostly the garbage collector: a window that holds a major collection counts 10-20% more, so
 * compare runs of 1,000 requests or more, and read `--keep-dumps` with `callgrind_annotate` for where the
 * instructions went (V8's own functions are named; JIT code is not, unless the gateway runs with
 * `--gateway-flags --liftoff-only,--perf-basic-prof` and its addresses are looked up in /tmp/perf-<pid>.map).
 * `--modes` sets which windows are measured, in order (`stream,json`, `json,json`): a mode's figure also
 * depends on what ran before it (the rows already stored, the heap's age), which a different order shows.
 *
 * `--flush-ms` is the gateway's `SWITCHBOARD_RECORD_FLUSH_MS`, the period of the record queue's and the spend
 * ledger's timers. Each tick writes to the database, and on PGlite that work runs in the gateway's process: a
 * batch's fixed cost, and for the ledger's upsert a copy of PGlite's type-parser table that drizzle's query
 * options cause (about 1.1 M instructions a query). Under valgrind the gateway serves some 15-35 requests a
 * second, not thousands, so at the production period of 1 s that per-second work is spread over a hundred
 * times fewer requests than in production, and it grows with the window's length, that is with the
 * machine's load. The default (10 minutes) leaves the records to be written when a batch is full (500), as
 * they are under production load; `--flush-ms 1000` measures the production timers as they run. On PGlite a
 * window of 1,000 requests then holds one or two full batches (a batch of 500 is about 0.1 M instructions per
 * request of that window): compare PGlite figures over more requests, or request-path work on PostgreSQL.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load-generator.ts';
import { requestBody } from './measure.ts';
import { startFloor, startGateway, startUpstream, type Target } from './targets.ts';
import type { BenchDatabase } from './gateway-setup.ts';
import { callgrindControl, readNewDumps, type Counts } from './callgrind.ts';

// valgrind names its gdbserver pipes after $HOST, which the gateway's environment sets (its listen address):
// every child and callgrind_control (through vgdb) must see the same value to find each other.
process.env.HOST = '127.0.0.1';
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '30' },
    database: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    'gateway-flags': { type: 'string' },
    'callgrind-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    modes: { type: 'string', default: 'json,stream' },
    'flush-ms': { type: 'string', default: '600000' },
  },
});
const requests = Number(values.requests);
const connections = Number(values.connections);
const directory = mkdtempSync(join(tmpdir(), 'switchboard-instructions-'));
const launch = (name: string) => ({
  launcher: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', ...(values['callgrind-flags']?.split(' ') ?? []), `--callgrind-out-file=${join(directory, `${name}.%p`)}`],
  readyTimeoutMs: 600_000,
});

async function countPerRequest(target: Target, name: string, stream: boolean): Promise<{ perRequest: Counts; seconds: number }> {
  const seen = new Set(readdirSync(directory));
  const result = await runLoad({
    origin: target.origin,
    path: target.path,
    headers: target.headers,
    body: requestBody(target.model, stream),
    connections,
    warmupMs: Number(values.warmup) * 1000,
    durationMs: 3_600_000,
    maxRequests: requests,
    stream,
    onMeasureStart: () => callgrindControl(target.pid, '--instr=on', target.name),
    onMeasureEnd: async () => {
      await callgrindControl(target.pid, '--instr=off', target.name);
      await callgrindControl(target.pid, '--dump', target.name);
    },
  });
  if (result.non2xx + result.failures > 0) throw new Error(`${target.name}: ${result.firstProblem ?? 'errors'}`);
  const counts = readNewDumps(directory, seen, `${name}.`);
  const perRequest = { total: counts.total / result.requests, gc: counts.gc / result.requests, compiler: counts.compiler / result.requests };
  return { perRequest, seconds: result.elapsedMs / 1000 };
}

const millions = (count: number) => `${(count / 1e6).toFixed(3)} M`;
const rest = (counts: Counts) => counts.total - counts.gc - counts.compiler;
const parts = (counts: Counts) => `${(counts.gc / 1e6).toFixed(3)} / ${(counts.compiler / 1e6).toFixed(3)} / ${(rest(counts) / 1e6).toFixed(3)}`;

const upstream = await startUpstream({});
const stops: (() => Promise<void>)[] = [() => upstream.child.stop()];
try {
  const origin = upstream.child.ready.origin;
  const floor = await startFloor(origin, launch('floor'));
  stops.push(() => floor.stop());
  const gateway = await startGateway({ name: 'gateway', upstreamOrigin: origin, database: values.database as BenchDatabase, workers: 1, env: { SWITCHBOARD_RECORD_FLUSH_MS: values['flush-ms'] }, launch: launch('gateway'), ...(values['gateway-flags'] ? { nodeFlags: values['gateway-flags'].split(','), keepEnvironment: true } : {}) });
  stops.push(() => gateway.stop());
  console.log(`Instructions per request (callgrind), ${requests} requests at ${connections} connections after a ${values.warmup} s warm-up; gateway on ${values.database}, records and spend flushed every ${values['flush-ms']} ms.\n`);
  // The gateway's window in seconds: its timers (the record queue's and the spend ledger's flush, once a second
  // each) write to the database per second, not per request, and on PGlite that work is in the gateway's count.
  // Also each count without the collector and the optimising compilers (the "rest"), which moves less.
  console.log('| mode | floor | gateway | ratio | floor GC / compiler / rest | gateway GC / compiler / rest | ratio of the rest | gateway window |\n|---|--:|--:|--:|--:|--:|--:|--:|');
  const modes = values.modes.split(',').map((mode) => {
    if (mode !== 'json' && mode !== 'stream') throw new Error(`--modes: ${mode} is neither json nor stream`);
    return mode === 'stream';
  });
  for (const stream of modes) {
    const floorCount = await countPerRequest(floor, 'floor', stream);
    const gatewayCount = await countPerRequest(gateway, 'gateway', stream);
    const floorCounts = floorCount.perRequest;
    const gatewayCounts = gatewayCount.perRequest;
    console.log(
      `| ${stream ? 'stream' : 'JSON'} | ${millions(floorCounts.total)} | ${millions(gatewayCounts.total)} | ${(gatewayCounts.total / floorCounts.total).toFixed(2)}× | ${parts(floorCounts)} | ${parts(gatewayCounts)} | ${(rest(gatewayCounts) / rest(floorCounts)).toFixed(2)}× | ${gatewayCount.seconds.toFixed(0)} s |`,
    );
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  if (values['keep-dumps']) console.error(`callgrind dumps kept in ${directory}`);
  else rmSync(directory, { recursive: true, force: true });
}
