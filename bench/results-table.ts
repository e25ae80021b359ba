/**
 * Turns one bench run's measurements into markdown: the load table (one row per target, mode and connection
 * count), the memory table (RSS idle after start, peak under load, after the run) and the sequential
 * streaming probe. The aims are checked in bench/aims.ts.
 */
import { cpus, totalmem } from 'node:os';
import type { LoadResult } from './load-generator.ts';
import type { ProbeResult } from './stream-probe.ts';
import { megabytes } from './process-stats.ts';
import type { ChildMemory } from './child-process.ts';

/** Which server a row measured. */
export type TargetName =
  | 'direct upstream'
  | 'pass-through floor'
  | 'gateway'
  | 'gateway, observability off'
  | 'gateway + observability'
  | 'gateway, 2 workers'
  | 'gateway on PostgreSQL'
  | `gateway with ${string}`;

/** One measured load scenario. */
export interface ScenarioResult {
  target: TargetName;
  stream: boolean;
  connections: number;
  load: LoadResult;
  /** CPU of the process(es) under test per measured request, in microseconds. */
  cpuMicrosPerRequest: number;
  /** CPU of the upstream per request (the same as the above on the direct row). */
  upstreamCpuMicrosPerRequest: number;
  /** CPU of the load generator (the bench process) per request. */
  clientCpuMicrosPerRequest: number;
}

/** Resident memory of one target (summed over its processes), in bytes. */
export interface MemoryResult {
  target: TargetName;
  database: string;
  idleBytes: number;
  /** Highest RSS sampled while the target was under load; NaN when it was not driven. */
  peakBytes: number;
  afterBytes: number;
  /** The process's own view at idle (single-process targets). */
  idleBreakdown: ChildMemory | undefined;
}

/** The probe's figures for one target. */
export interface ProbeRow {
  target: TargetName;
  result: ProbeResult;
}

/** The warm-up as settings describe it: seconds, and the answers it waited for when it did. */
function warmupText(settings: Pick<RunSettings, 'warmupMs' | 'warmupRequests' | 'startupRequests'>): string {
  const seconds = `${settings.warmupMs / 1000} s`;
  const window = settings.warmupRequests ? `a warm-up of at least ${seconds} and ${settings.warmupRequests} answers` : `${seconds} warm-up`;
  return settings.startupRequests ? `${settings.startupRequests} requests of each mode at 16 connections on each target before its first window, then ${window}` : window;
}

/** Settings shown above the tables so a reader can reproduce the run. */
export interface RunSettings {
  warmupMs: number;
  /** Answers each warm-up must also have seen; absent in runs stored before it existed. */
  warmupRequests?: number;
  /** Requests of each mode every target served before its first window; absent in runs stored before it existed. */
  startupRequests?: number;
  durationMs: number;
  /** Windows per target and scenario (bench/measure.ts pools them into one row). */
  rounds: number;
  maxRequests: number;
  idleSettleMs: number;
  probeMs: number;
  date: Date;
  /** Load average when the run started (1, 5, 15 minutes). */
  loadAverage: number[];
  /** Wall-clock time of the whole run. */
  elapsedMs: number;
}

/** A number with fixed decimals, or n/a. */
export const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function loadRow(result: ScenarioResult): string {
  const { load } = result;
  return [
    result.target,
    result.stream ? 'stream' : 'json',
    String(result.connections),
    fixed(load.requestsPerSecond, 0),
    fixed(load.p50Ms, 3),
    fixed(load.p99Ms, 3),
    fixed(result.cpuMicrosPerRequest, 0),
    fixed(result.upstreamCpuMicrosPerRequest, 0),
    fixed(result.clientCpuMicrosPerRequest, 0),
    String(load.requests),
    `${load.non2xx} / ${load.failures}`,
  ].join(' | ');
}

/** The machine and settings paragraph. */
export function describeRun(settings: RunSettings, command: string): string[] {
  const cpu = cpus();
  return [
    `Run on ${settings.date.toISOString()} by \`${command}\` (${fixed(settings.elapsedMs / 1000, 0)} s in all).`,
    `Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}; load average at the start ${settings.loadAverage.map((value) => value.toFixed(2)).join(', ')}.`,
  ];
}

/** The load table, the memory table and the probe table. */
export function renderMainTables(results: readonly ScenarioResult[], memory: readonly MemoryResult[], probes: readonly ProbeRow[], settings: RunSettings): string[] {
  return [
    `Load: closed loop on one undici Pool per window, ${warmupText(settings)} thrown away, then ${settings.durationMs / 1000} s measured (at most ${settings.maxRequests} requests); ${settings.rounds} window${settings.rounds === 1 ? '' : 's'} per target and scenario, pooled into its row (requests, CPU and time summed; p50 and p99 the median window's).`,
    'Targets take turns: each scenario runs on every target before the next scenario, in an order that reverses after every round of windows, so a row and the floor row it is compared with come from the same seconds. The probe sends one request to each probed target in turn.',
    'Everything (upstream, server under test, load generator) shares the same cores on 127.0.0.1; each server runs in its own child process.',
    '',
    'CPU µs/req is the user+system CPU time of the server under test over the measured window divided by the requests completed in it (`process.cpuUsage` over IPC; for a cluster, /proc summed over the primary and its workers); for the direct row that is the upstream itself. The upstream and client columns show what the rest of the box spent per request.',
    '',
    '| target | mode | conns | req/s | p50 ms | p99 ms | CPU µs/req | upstream CPU µs/req | client CPU µs/req | requests | non-2xx / failures |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...results.map((result) => `| ${loadRow(result)} |`),
    '',
    '### Memory',
    '',
    `RSS of the target's processes from /proc (a cluster: primary plus workers): idle ${settings.idleSettleMs / 1000} s after it reported ready and before any load (a gateway has stored a BYOK credential and answered two check requests per worker by then), the highest value sampled every 250 ms under load, and 2 s after its last scenario.`,
    '',
    'At idle, the process\'s own view (`process.memoryUsage`, `v8.getHeapCodeStatistics`): V8 heap live and committed, bytecode and machine code inside it, and ArrayBuffers outside it. The rest of RSS is the Node binary\'s pages, malloc, WebAssembly memory and code.',
    '',
    '| target | database | idle MB | peak under load MB | after the run MB | idle: heap live / committed MB | idle: code MB | idle: ArrayBuffers MB |',
    '|---|---|--:|--:|--:|--:|--:|--:|',
    ...memory.map((row) => {
      const heap = row.idleBreakdown;
      const own = heap ? [`${megabytes(heap.heapUsed)} / ${megabytes(heap.heapTotal)}`, megabytes(heap.code), megabytes(heap.arrayBuffers)] : ['n/a', 'n/a', 'n/a'];
      return `| ${row.target} | ${row.database} | ${megabytes(row.idleBytes)} | ${megabytes(row.peakBytes)} | ${megabytes(row.afterBytes)} | ${own.join(' | ')} |`;
    }),
    '',
    '### Sequential streaming probe',
    '',
    `One connection per target, one streaming request at a time, ${settings.probeMs / 1000} s per target after a warm-up, the targets taking turns request by request, the upstream writing each event in a packet of its own 1 ms apart (the first text delta is its third event); milliseconds from sending the request to the response headers, the first body byte, the first \`text_delta\` and the end of the stream (p50, p90 in parentheses).`,
    '',
    '| target | requests | headers ms | first byte ms | first delta ms | end ms | failures |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...probes.map(({ target, result }) => {
      const cell = (name: keyof ProbeResult['p50']): string => `${fixed(result.p50[name], 3)} (${fixed(result.p90[name], 3)})`;
      return `| ${target} | ${result.requests} | ${cell('headers')} | ${cell('firstByte')} | ${cell('firstDelta')} | ${cell('end')} | ${result.failures} |`;
    }),
  ];
}
