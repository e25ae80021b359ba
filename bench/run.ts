/**
 * `npm run bench`: starts a fake Anthropic upstream, a pass-through floor proxy and the real gateway, each in
 * its own child process on 127.0.0.1, measures each one's idle RSS, drives each with the closed-loop load
 * generator (JSON and streaming at 1, 16 and 64 connections) while sampling its RSS, runs the sequential
 * streaming probe, and prints requests/s, latency, CPU per request, memory and the aims side by side. With
 * DATABASE_URL set it also measures a gateway's idle RSS on PostgreSQL and drives a 2-worker gateway
 * (`SWITCHBOARD_WORKERS=2`, PostgreSQL, REDIS_URL when set). A full run takes about four minutes and writes
 * bench/results.md.
 *
 * The `observed` target is two more gateways driven in the same run: one with generation records off and no
 * destination, one with records on and one OTLP/HTTP destination (sampling 1, protobuf) on a receiver in the
 * fake upstream's process. On a shared machine their difference is smaller than its noise, so the aim of issue
 * 11 is judged by `bench/observability-cost.ts`, which the same target runs after the load: the same added CPU
 * measured in one process alone (bench/observability-run.ts), on PGlite and, with DATABASE_URL, PostgreSQL.
 *
 * Options: `--duration <s>` (3), `--rounds <n>` (2: measured windows per target and scenario, targets taking
 * turns), `--warmup <s>` (1), `--warmup-requests <n>` (3000: the warm-up lasts until both are reached; see
 * below), `--startup-requests <n>` (10000 of each mode, 16 connections, unmeasured, on every target before its
 * first window), `--connections 1,16,64`, `--targets direct,floor,gateway,observed,workers`, `--modes json,stream`, `--max-requests <n>`, `--database pglite|postgres`
 * (the gateway's; postgres reads DATABASE_URL), `--workers <n>` (2), `--idle <s>` (10), `--probe <s>` (3),
 * `--gateway-flags <a,b>|none` (replace the gateway's Node flags), `--variant <a,b>|none` (repeatable: one more gateway
 * with these flags instead of its own, driven alongside it), `--profile <dir>` (the gateway's measured windows with the V8 profiler, one `gateway-<mode>-<conns>.cpuprofile`
 * each; summarise with `node bench/profile-summary.ts <file>`), `--cpu-prof <dir>` (the gateway's whole life).
 * Modes: `--soak` (10 minutes, `--soak-minutes`, mixed JSON and streams at 32 connections, RSS every 5 s) and
 * `--streams <n>` (n streams held open at once), each against the gateway only.
 *
 * Why a warm-up counts answers as well as seconds: while the other targets take their turns, a target sits idle
 * for tens of seconds, and a full collection in that lull (V8's memory reducer, which starts about 8 s after
 * allocation stops) can discard optimised code whose objects' shapes have no live instance left. The next
 * window then re-optimises: 94-108 functions recompiled in its first 1,000 requests after such a lull (188-193
 * after the gateway's own first idle compaction), against 2-21 otherwise (`--trace-opt`, 2026-11-26), at up to
 * twice the CPU per request. At 64 connections a 1 s warm-up is tens of thousands of requests and absorbs it;
 * at one connection it is a thousand or two, so the one-connection rows measured the re-warming more than the
 * steady state. Every target gets the same warm-up. (The gateway now runs
 * without the memory reducer, src/serve/runtime-settings.ts; the floor keeps it, and the gateway's own idle
 * compaction after its first requests still falls in such a lull. A fresh process also needs 5,000-10,000
 * requests on this VM to settle, more than one window's warm-up: hence `--startup-requests`.)
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { ChildServer } from './child-process.ts';
import { startFloor, startGateway, startUpstream, type Target } from './targets.ts';
import { rssBytes, processTree } from './process-stats.ts';
import { describeRun, renderMainTables, type MemoryResult, type ProbeRow, type ScenarioResult } from './results-table.ts';
import { measureTargets, requestBody } from './measure.ts';
import { storeSection, readStoredResults, renderStoredResults } from './results-store.ts';
import { runSoak } from './soak.ts';
import { runOpenStreams } from './open-streams.ts';
import type { BenchDatabase } from './gateway-setup.ts';
import { measureObservabilityCost, renderObservabilityCost, type ObservabilityCost } from './observability-run.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '1' },
    'warmup-requests': { type: 'string', default: '3000' },
    'startup-requests': { type: 'string', default: '10000' },
    connections: { type: 'string', default: '1,16,64' },
    targets: { type: 'string', default: 'direct,floor,gateway,observed,workers' },
    modes: { type: 'string', default: 'json,stream' },
    'max-requests': { type: 'string', default: '200000' },
    database: { type: 'string', default: 'pglite' },
    workers: { type: 'string', default: '2' },
    idle: { type: 'string', default: '10' },
    probe: { type: 'string', default: '3' },
    profile: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'gateway-flags': { type: 'string' },
    variant: { type: 'string', multiple: true },
    soak: { type: 'boolean', default: false },
    'soak-minutes': { type: 'string', default: '10' },
    streams: { type: 'string' },
  },
});

const startedAt = performance.now();
const loadAverage = loadavg();
const database = values.database as BenchDatabase;
if (database !== 'pglite' && database !== 'postgres') throw new Error('--database must be pglite or postgres');
const hasPostgres = Boolean(process.env.DATABASE_URL);
const targets = new Set(values.targets.split(','));
const settings = {
  warmupMs: Number(values.warmup) * 1000,
  warmupRequests: Number(values['warmup-requests']),
  startupRequests: Number(values['startup-requests']),
  durationMs: Number(values.duration) * 1000,
  rounds: Number(values.rounds),
  maxRequests: Number(values['max-requests']),
  idleSettleMs: Number(values.idle) * 1000,
  probeMs: Number(values.probe) * 1000,
};
const profileDir = values.profile ? resolve(values.profile) : undefined;
if (profileDir) mkdirSync(profileDir, { recursive: true });
const gatewayExecArgv = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`] : [];
// The gateway's own Node flags and environment (src/serve/runtime-settings.ts) unless replaced, e.g. `--gateway-flags none`
// runs it with neither, to see what they do.
const gatewayNodeFlags = values['gateway-flags'] === undefined ? undefined : values['gateway-flags'] === 'none' ? [] : values['gateway-flags'].split(',');
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

console.error(`load average ${loadAverage.map((value) => value.toFixed(2)).join(' ')} on this machine; figures from a busy machine are noisy`);

const stoppers: (() => Promise<void>)[] = [];
try {
  const trickle: Record<string, string> = values.streams ? { BENCH_TRICKLE_INTERVAL_MS: '1000', BENCH_TRICKLE_DELTAS: '20' } : {};
  const upstream = await startUpstream(trickle);
  stoppers.push(() => upstream.child.stop());
  const upstreamOrigin = upstream.child.ready.origin;
  const gatewayOptions = { upstreamOrigin, database, workers: 1, execArgv: gatewayExecArgv, ...(gatewayNodeFlags ? { nodeFlags: gatewayNodeFlags } : {}) } as const;

  // A soak or open-streams run is stored only for the gateway as it ships (its own Node flags).
  const storable = values['gateway-flags'] === undefined && !values['cpu-prof'];
  if (values.soak || values.streams) {
    const gateway = await startGateway({ ...gatewayOptions, name: 'gateway' });
    stoppers.push(() => gateway.stop());
    await sleep(settings.idleSettleMs);
    if (values.soak) {
      const minutes = Number(values['soak-minutes']);
      const soak = await runSoak(gateway, { durationMs: minutes * 60_000, connections: 32, sampleEveryMs: 5000, body: (stream) => requestBody(gateway.model, stream) });
      console.log(soak.markdown);
      if (minutes === 10 && storable) storeSection('soak', { markdown: `${soak.markdown}\n\nGateway on ${database}; load average at the start ${loadAverage.map((value) => value.toFixed(2)).join(', ')}.`, figures: soak.figures });
      if (soak.figures.errors > 0) process.exitCode = 1;
    } else {
      const streams = Number(values.streams);
      const outcome = await runOpenStreams(gateway, { streams, openTimeoutMs: 60_000, body: requestBody(gateway.slowModel, true) });
      console.log(outcome.markdown);
      if (streams >= 1000 && storable) storeSection('openStreams', { markdown: `${outcome.markdown}\n\nGateway on ${database}; load average at the start ${loadAverage.map((value) => value.toFixed(2)).join(', ')}.`, figures: outcome.figures });
      if (outcome.figures.errors > 0) process.exitCode = 1;
    }
  } else {
    const list: { target: Target; database: string; loadDriven: boolean }[] = [];
    if (targets.has('direct')) list.push({ target: upstream.target, database: '-', loadDriven: true });
    if (targets.has('floor')) list.push({ target: await startFloor(upstreamOrigin), database: '-', loadDriven: true });
    if (targets.has('gateway')) {
      list.push({ target: await startGateway({ ...gatewayOptions, name: 'gateway' }), database, loadDriven: true });
      if (database === 'pglite' && hasPostgres) list.push({ target: await startGateway({ ...gatewayOptions, name: 'gateway on PostgreSQL', database: 'postgres' }), database: 'postgres', loadDriven: false });
    }
    if (targets.has('observed')) {
      list.push({ target: await startGateway({ ...gatewayOptions, name: 'gateway, observability off', env: { SWITCHBOARD_GENERATION_RECORDS: 'off' } }), database, loadDriven: true });
      list.push({
        target: await startGateway({
          ...gatewayOptions,
          name: 'gateway + observability',
          // The receiver is on 127.0.0.1: private destinations are allowed explicitly, as the README says.
          env: { SWITCHBOARD_GENERATION_RECORDS: 'on', SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: 'true' },
          otlpDestination: `${upstreamOrigin}/v1/traces`,
        }),
        database,
        loadDriven: true,
      });
    }
    // Each `--variant <flags>` adds a gateway started with those Node flags instead of its own (same environment), driven
    // like the gateway in the same run: what a flag costs or saves, as a ratio on one machine state.
    for (const variant of values.variant ?? []) {
      const nodeFlags = variant === 'none' ? [] : variant.split(',');
      list.push({ target: await startGateway({ ...gatewayOptions, name: `gateway with ${variant}`, nodeFlags, keepEnvironment: true }), database, loadDriven: true });
    }
    if (targets.has('workers') && hasPostgres) {
      const workers = Number(values.workers);
      const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
      list.push({ target: await startGateway({ ...gatewayOptions, name: 'gateway, 2 workers', database: 'postgres', workers, env: redis }), database: 'postgres', loadDriven: true });
    } else if (targets.has('workers')) console.error('the 2-worker row needs DATABASE_URL (workers share PostgreSQL); skipped');
    for (const { target } of list) if (target !== upstream.target) stoppers.push(() => target.stop());

    // Every target idles together, so the wait is paid once.
    await sleep(settings.idleSettleMs);
    const memory: MemoryResult[] = [];
    for (const { target, database: db } of list) {
      const idleBreakdown = target.name === 'gateway, 2 workers' ? undefined : await target.child.memory();
      memory.push({ target: target.name, database: db, idleBytes: rssBytes(processTree(target.pid)), peakBytes: Number.NaN, afterBytes: Number.NaN, idleBreakdown });
    }
    for (const entry of list.filter((candidate) => !candidate.loadDriven)) await entry.target.stop();

    const scenarios: ScenarioResult[] = [];
    const probes: ProbeRow[] = [];
    const driven = list.filter((entry) => entry.loadDriven);
    const measurements = await measureTargets(
      driven.map(({ target }) => ({
        target,
        profileDir: target.name === 'gateway' || target.name.startsWith('gateway, observability') || target.name === 'gateway + observability' ? profileDir : undefined,
        probe: target.name !== 'gateway, 2 workers' && !target.name.startsWith('gateway, observability') && target.name !== 'gateway + observability',
      })),
      upstream.child as ChildServer<unknown>,
      { ...settings, connectionCounts: values.connections.split(',').map(Number), modes: values.modes.split(',').map((mode) => mode === 'stream') },
    );
    driven.forEach(({ target }, index) => {
      const measured = measurements[index]!;
      scenarios.push(...measured.scenarios);
      if (measured.probe) probes.push({ target: target.name, result: measured.probe });
      const row = memory.find((candidate) => candidate.target === target.name);
      if (row) Object.assign(row, { peakBytes: measured.peakBytes, afterBytes: measured.afterBytes });
    });

    // Issue 11's aim is judged in a process of its own, after the load, so nothing else runs beside it.
    const observabilityCost: ObservabilityCost[] = targets.has('observed') ? await measureObservabilityCost() : [];

    const isFullRun =
      !profileDir && !values['cpu-prof'] && !values.variant && values['gateway-flags'] === undefined && values.duration === '3' && values.rounds === '2' && values.warmup === '1' && values['warmup-requests'] === '3000' && values['startup-requests'] === '10000' && values.connections === '1,16,64' && values.modes === 'json,stream' && ['direct', 'floor', 'gateway'].every((name) => targets.has(name));
    const run = { ...settings, date: new Date(), loadAverage, elapsedMs: performance.now() - startedAt };
    const markdown = [...describeRun(run, 'npm run bench'), '', ...renderMainTables(scenarios, memory, probes, run), '', ...renderObservabilityCost(observabilityCost)].join('\n');
    if (isFullRun) {
      storeSection('main', { markdown, scenarios, memory, probes, observabilityCost });
      console.log(renderStoredResults(readStoredResults()));
      console.error('written to bench/results.md');
    } else {
      console.log(renderStoredResults({ main: { markdown, scenarios, memory, probes, observabilityCost } }));
    }
    const errors = scenarios.reduce((sum, result) => sum + result.load.non2xx + result.load.failures, 0) + probes.reduce((sum, row) => sum + row.result.failures, 0);
    if (errors > 0) process.exitCode = 1;
  }
} finally {
  for (const stop of stoppers.reverse()) await stop().catch((error: unknown) => console.error(error));
}
