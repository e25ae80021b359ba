/**
 * `node bench/syscall-count.ts [--requests 2000] [--connections 1,16] [--modes json,stream] [--database postgres]`:
 * the system calls the gateway and the pass-through floor each make per request, by name, counted by
 * `strace -c -f` attached to the warmed-up process (every thread) for exactly a fixed number of requests.
 * Instructions (bench/instructions.ts) count a system call as one; its cost is in the kernel, so a stream
 * that writes twice where the floor writes once shows here and not there. Needs strace. strace slows the
 * process it traces, which changes how many answers share one `epoll_wait` at many connections: compare the
 * gateway with the floor at the same connections, not the figures of two connection counts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad } from './load-generator.ts';
import { requestBody } from './measure.ts';
import { startFloor, startGateway, startUpstream, type Target } from './targets.ts';
import type { BenchDatabase } from './gateway-setup.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '1,16' },
    modes: { type: 'string', default: 'json,stream' },
    database: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
  },
});
const requests = Number(values.requests);
const directory = mkdtempSync(join(tmpdir(), 'switchboard-syscalls-'));

/** strace -c's table as calls per name. */
function parseSummary(text: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // % time, seconds, usecs/call, calls, [errors,] syscall
    if (fields.length < 5 || !/^\d+\.\d+$/.test(fields[0] ?? '')) continue;
    const name = fields.at(-1) ?? '';
    if (name === 'total') continue;
    calls.set(name, Number(fields[3]));
  }
  return calls;
}

async function countPerRequest(target: Target, stream: boolean, connections: number, label: string): Promise<Map<string, number>> {
  const body = requestBody(target.model, stream);
  const load = (maxRequests: number, onMeasureStart: () => Promise<void>, onMeasureEnd: () => Promise<void>) =>
    runLoad({ origin: target.origin, path: target.path, headers: target.headers, body, connections, warmupMs: 0, warmupRequests: 0, durationMs: 3_600_000, maxRequests, stream, onMeasureStart, onMeasureEnd });
  await load(Number(values.warmup), async () => {}, async () => {});
  const file = join(directory, `${label}.txt`);
  // Attached before the window's load starts and detached after it: only the answers in flight at its end
  // (at most one per connection) and an idle second's timers are counted beyond the window.
  const tracer = spawn('strace', ['-c', '-f', '-o', file, '-p', String(target.pid)], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => tracer.once('exit', () => resolve()));
  await sleep(1000);
  const result = await load(requests, async () => {}, async () => {});
  tracer.kill('SIGINT');
  await exited;
  if (result.non2xx + result.failures > 0) throw new Error(`${target.name}: ${result.firstProblem ?? 'errors'}`);
  const perRequest = new Map<string, number>();
  for (const [name, count] of parseSummary(readFileSync(file, 'utf8'))) perRequest.set(name, count / result.requests);
  return perRequest;
}

const upstream = await startUpstream({});
const stops: (() => Promise<void>)[] = [() => upstream.child.stop()];
try {
  const origin = upstream.child.ready.origin;
  const floor = await startFloor(origin);
  stops.push(() => floor.stop());
  const gateway = await startGateway({ name: 'gateway', upstreamOrigin: origin, database: values.database as BenchDatabase, workers: 1 });
  stops.push(() => gateway.stop());
  console.log(`System calls per request (strace -c -f), ${requests} requests after ${values.warmup}; gateway on ${values.database}.\n`);
  for (const connections of values.connections.split(',').map(Number)) {
    for (const mode of values.modes.split(',')) {
      const stream = mode === 'stream';
      const floorCalls = await countPerRequest(floor, stream, connections, `floor-${mode}-${connections}`);
      const gatewayCalls = await countPerRequest(gateway, stream, connections, `gateway-${mode}-${connections}`);
      const names = [...new Set([...floorCalls.keys(), ...gatewayCalls.keys()])]
        .filter((name) => (floorCalls.get(name) ?? 0) >= 0.01 || (gatewayCalls.get(name) ?? 0) >= 0.01)
        .sort((a, b) => (gatewayCalls.get(b) ?? 0) - (gatewayCalls.get(a) ?? 0));
      const sum = (calls: Map<string, number>) => [...calls.values()].reduce((total, count) => total + count, 0);
      console.log(`${mode}, ${connections} connection(s): floor ${sum(floorCalls).toFixed(2)}, gateway ${sum(gatewayCalls).toFixed(2)} per request`);
      for (const name of names) console.log(`  ${name.padEnd(18)} ${(floorCalls.get(name) ?? 0).toFixed(2).padStart(7)} ${(gatewayCalls.get(name) ?? 0).toFixed(2).padStart(7)}`);
    }
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  rmSync(directory, { recursive: true, force: true });
}
