/**
 * Turns the bench's measurements into the markdown it prints and writes to bench/results.md: one table
 * row per target, mode and connection count, then the check against the aim (gateway CPU per request at
 * most twice the floor's; at most 0.5 ms added at p50 on one connection; zero errors).
 */
import { cpus, totalmem } from 'node:os';
import type { LoadResult } from './load-generator.ts';

/** Which server a row measured. */
export type TargetName = 'direct upstream' | 'pass-through floor' | 'gateway' | 'gateway + observability';

/** One measured scenario. */
export interface ScenarioResult {
  target: TargetName;
  stream: boolean;
  connections: number;
  load: LoadResult;
  /** CPU of the process under test per measured request, in microseconds. */
  cpuMicrosPerRequest: number;
  /** CPU of the upstream per request (the same as the above on the direct row). */
  upstreamCpuMicrosPerRequest: number;
  /** CPU of the load generator (this process) per request. */
  clientCpuMicrosPerRequest: number;
}

/** Settings shown above the table so a reader can reproduce the run. */
export interface RunSettings {
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
  date: Date;
}

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function row(result: ScenarioResult): string {
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

function find(results: readonly ScenarioResult[], target: TargetName, stream: boolean, connections: number): ScenarioResult | undefined {
  return results.find((result) => result.target === target && result.stream === stream && result.connections === connections);
}

function aimLines(results: readonly ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'non-streaming';
    for (const connections of [1, 64]) {
      const gateway = find(results, 'gateway', stream, connections);
      const floor = find(results, 'pass-through floor', stream, connections);
      if (!gateway || !floor) continue;
      const ratio = gateway.cpuMicrosPerRequest / floor.cpuMicrosPerRequest;
      lines.push(`- CPU, ${mode}, ${connections} conn: gateway ${fixed(gateway.cpuMicrosPerRequest, 0)} µs vs floor ${fixed(floor.cpuMicrosPerRequest, 0)} µs = ${fixed(ratio, 2)}× (aim ≤ 2×): ${ratio <= 2 ? 'met' : 'NOT met'}`);
    }
    const gateway = find(results, 'gateway', stream, 1);
    const direct = find(results, 'direct upstream', stream, 1);
    if (gateway && direct) {
      const added = gateway.load.p50Ms - direct.load.p50Ms;
      lines.push(`- p50 added, ${mode}, 1 conn: ${fixed(gateway.load.p50Ms, 3)} − ${fixed(direct.load.p50Ms, 3)} = ${fixed(added, 3)} ms (aim ≤ 0.5 ms): ${added <= 0.5 ? 'met' : 'NOT met'}`);
    }
  }
  for (const stream of [false, true]) {
    for (const connections of [1, 64]) {
      const plain = find(results, 'gateway', stream, connections);
      const observed = find(results, 'gateway + observability', stream, connections);
      if (!plain || !observed) continue;
      const added = observed.cpuMicrosPerRequest - plain.cpuMicrosPerRequest;
      lines.push(
        `- CPU added by records and one OTLP destination, ${stream ? 'streaming' : 'non-streaming'}, ${connections} conn: ${fixed(observed.cpuMicrosPerRequest, 0)} − ${fixed(plain.cpuMicrosPerRequest, 0)} = ${fixed(added, 0)} µs (aim ≤ 20 µs): ${added <= 20 ? 'met' : 'NOT met'}`,
      );
    }
  }
  const errors = results.reduce((sum, result) => sum + result.load.non2xx + result.load.failures, 0);
  lines.push(`- errors over all rows: ${errors} (aim 0): ${errors === 0 ? 'met' : 'NOT met'}`);
  for (const result of results) {
    if (result.load.firstProblem) lines.push(`  - first problem, ${result.target} ${result.stream ? 'stream' : 'json'} ${result.connections} conn: ${result.load.firstProblem}`);
  }
  return lines;
}

/** The whole markdown report: machine, settings, the table and the aim check. */
export function renderResults(results: readonly ScenarioResult[], settings: RunSettings): string {
  const cpu = cpus();
  return [
    '# Switchboard benchmark',
    '',
    `Run on ${settings.date.toISOString()} by \`npm run bench\`.`,
    `Machine: ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}.`,
    `Load: closed loop on one undici Pool per run, ${settings.warmupMs / 1000} s warm-up thrown away, then ${settings.durationMs / 1000} s measured (at most ${settings.maxRequests} requests).`,
    'Everything (upstream, server under test, load generator) shares the same cores on 127.0.0.1; each server runs in its own child process.',
    '',
    'CPU µs/req is the user+system CPU time of the process under test (`process.cpuUsage` over IPC) over the measured window divided by the requests completed in it; for the direct row that is the upstream itself. The upstream and client columns show what the rest of the box spent per request.',
    '',
    '| target | mode | conns | req/s | p50 ms | p99 ms | CPU µs/req | upstream CPU µs/req | client CPU µs/req | requests | non-2xx / failures |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...results.map((result) => `| ${row(result)} |`),
    '',
    '## Against the aim',
    '',
    ...aimLines(results),
    '',
  ].join('\n');
}
