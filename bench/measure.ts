/**
 * Measures targets together: every load scenario (mode × connections) runs on each target in turn before
 * the next scenario, with CPU snapshots around each measured window and every target's RSS sampled
 * throughout, then the sequential streaming probe of the targets that take it, interleaved request by
 * request. On this shared VM the machine's speed drifts over a minute (the floor's own CPU per request moved
 * by half between runs), so the floor's window and the gateway's for one scenario are seconds apart, not a
 * minute, and the order of the targets reverses after every round of windows. The V8 profiler optionally
 * wraps each measured window (single-process gateway).
 */
import { join } from 'node:path';
import type { ChildServer } from './child-process.ts';
import { runLoad } from './load-generator.ts';
import { RssSampler } from './process-stats.ts';
import { runStreamProbes, type ProbeResult } from './stream-probe.ts';
import type { ScenarioResult } from './results-table.ts';
import type { Target } from './targets.ts';

/** The request body the bench sends: a short question, streamed or not. */
export function requestBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    max_tokens: 256,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: 'Hello, how are you today?' }],
  });
}

/** What to measure on every target. */
export interface MeasureOptions {
  warmupMs: number;
  /** Answers each window's warm-up must also have seen (bench/load-generator.ts). */
  warmupRequests?: number;
  /** Requests of each mode every target serves once, unmeasured, before the first window (a fresh process settling). */
  startupRequests?: number;
  durationMs: number;
  maxRequests: number;
  probeMs: number;
  connectionCounts: readonly number[];
  /** `true` for streaming, `false` for JSON. */
  modes: readonly boolean[];
  /** Windows per target and scenario, pooled into its row. */
  rounds: number;
}

/** A target and what is done to it besides the load. */
export interface MeasuredTarget {
  target: Target;
  /** Writes `gateway-<mode>-<conns>.cpuprofile` files here when set (other gateway targets: their name, dashed). */
  profileDir: string | undefined;
  probe: boolean;
}

/** A target's scenarios, probe, and memory under and after load. */
export interface TargetMeasurement {
  scenarios: ScenarioResult[];
  probe: ProbeResult | undefined;
  peakBytes: number;
  afterBytes: number;
}

/** Where and what the load sends to `target`, JSON or streamed. */
function requestTo(target: Target, stream: boolean) {
  return { origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.model, stream), stream };
}

/** One measured window of one scenario on one target, with the CPU of the target, the upstream and the bench. */
export async function measureWindow({ target, profileDir }: MeasuredTarget, upstream: ChildServer<unknown>, stream: boolean, connections: number, options: MeasureOptions): Promise<ScenarioResult> {
  const cpu = { measured: 0, upstream: 0, client: 0 };
  const load = await runLoad({
    ...requestTo(target, stream),
    connections,
    warmupMs: options.warmupMs,
    warmupRequests: options.warmupRequests ?? 0,
    durationMs: options.durationMs,
    maxRequests: options.maxRequests,
    async onMeasureStart() {
      if (profileDir) await target.child.startProfile();
      [cpu.measured, cpu.upstream] = await Promise.all([target.cpuMicros(), upstream.cpuMicros()]);
      const own = process.cpuUsage();
      cpu.client = own.user + own.system;
    },
    async onMeasureEnd() {
      const own = process.cpuUsage();
      const [measured, upstreamNow] = await Promise.all([target.cpuMicros(), upstream.cpuMicros()]);
      cpu.client = own.user + own.system - cpu.client;
      cpu.measured = measured - cpu.measured;
      cpu.upstream = upstreamNow - cpu.upstream;
      if (profileDir) await target.child.stopProfile(join(profileDir, `${target.name === 'gateway' ? 'gateway' : target.name.replace(/[^a-z0-9]+/g, '-')}-${stream ? 'stream' : 'json'}-${connections}.cpuprofile`));
    },
  });
  const perRequest = (micros: number): number => (load.requests > 0 ? micros / load.requests : Number.NaN);
  return {
    target: target.name,
    stream,
    connections,
    load,
    cpuMicrosPerRequest: perRequest(cpu.measured),
    upstreamCpuMicrosPerRequest: perRequest(cpu.upstream),
    clientCpuMicrosPerRequest: perRequest(cpu.client),
  };
}

/**
 * One row from a scenario's windows on one target: requests, errors and CPU summed (CPU per request is all the
 * CPU over all the requests), throughput over the windows' time, and the median window's p50 and p99 (the
 * windows' latency samples are not kept).
 */
export function poolWindows(windows: readonly ScenarioResult[]): ScenarioResult {
  const first = windows[0];
  if (!first) throw new Error('no window to pool');
  if (windows.length === 1) return first;
  const requests = windows.reduce((sum, window) => sum + window.load.requests, 0);
  const elapsedMs = windows.reduce((sum, window) => sum + window.load.elapsedMs, 0);
  const perRequest = (pick: (window: ScenarioResult) => number) => windows.reduce((sum, window) => sum + pick(window) * window.load.requests, 0) / requests;
  const median = (pick: (window: ScenarioResult) => number) => {
    const sorted = windows.map(pick).sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  return {
    ...first,
    load: {
      requests,
      elapsedMs,
      requestsPerSecond: (requests * 1000) / elapsedMs,
      p50Ms: median((window) => window.load.p50Ms),
      p99Ms: median((window) => window.load.p99Ms),
      non2xx: windows.reduce((sum, window) => sum + window.load.non2xx, 0),
      failures: windows.reduce((sum, window) => sum + window.load.failures, 0),
      firstProblem: windows.find((window) => window.load.firstProblem)?.load.firstProblem,
    },
    cpuMicrosPerRequest: perRequest((window) => window.cpuMicrosPerRequest),
    upstreamCpuMicrosPerRequest: perRequest((window) => window.upstreamCpuMicrosPerRequest),
    clientCpuMicrosPerRequest: perRequest((window) => window.clientCpuMicrosPerRequest),
  };
}

/**
 * Serves `requests` requests of one mode at 16 connections, unmeasured (at most 30 s). Its answers are checked
 * like a window's: a target that fails before it is measured stops the run rather than vanish from the count.
 */
async function settle(target: Target, stream: boolean, requests: number): Promise<void> {
  const idle = async (): Promise<void> => undefined;
  const load = await runLoad({ ...requestTo(target, stream), connections: 16, warmupMs: 0, durationMs: 30_000, maxRequests: requests, onMeasureStart: idle, onMeasureEnd: idle });
  const mode = stream ? 'stream' : 'json';
  if (load.non2xx + load.failures > 0) throw new Error(`${target.name} failed while settling (${mode}): ${load.non2xx} non-2xx answers, ${load.failures} failures`);
  console.error(`${target.name} ${mode} settling: ${load.requests} requests`);
}

/** Runs every scenario on every target, scenario by scenario, then the probes; a line per window to stderr. */
export async function measureTargets(targets: readonly MeasuredTarget[], upstream: ChildServer<unknown>, options: MeasureOptions): Promise<TargetMeasurement[]> {
  const samplers = targets.map(({ target }) => new RssSampler(target.pid));
  for (const sampler of samplers) sampler.start(250);
  const results: TargetMeasurement[] = targets.map(() => ({ scenarios: [], probe: undefined, peakBytes: 0, afterBytes: 0 }));
  // A fresh process, the floor's as much as the gateway's, takes thousands of requests to settle (bench/run.ts).
  if (options.startupRequests) {
    for (const { target } of targets) {
      for (const stream of options.modes) await settle(target, stream, options.startupRequests);
    }
  }
  // Reversed after every window round: the target measured last in one round is first in the next.
  let order = targets.map((_, index) => index);
  for (const stream of options.modes) {
    for (const connections of options.connectionCounts) {
      const windows: ScenarioResult[][] = targets.map(() => []);
      for (let round = 0; round < options.rounds; round += 1) {
        for (const index of order) {
          const result = await measureWindow(targets[index]!, upstream, stream, connections, options);
          windows[index]!.push(result);
          const { load } = result;
          console.error(
            `${result.target} ${stream ? 'stream' : 'json'} ${connections} conn: ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.p50Ms.toFixed(3)} ms, p99 ${load.p99Ms.toFixed(3)} ms, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/req, errors ${load.non2xx}/${load.failures}`,
          );
        }
        order = order.toReversed();
      }
      windows.forEach((list, index) => results[index]!.scenarios.push(poolWindows(list)));
    }
  }
  const probed = targets.flatMap((entry, index) => (entry.probe ? [index] : []));
  if (probed.length > 0) {
    const probeTargets = probed.map((index) => {
      const { target } = targets[index]!;
      return { origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.pacedModel, true) };
    });
    const probes = await runStreamProbes(probeTargets, { warmupMs: 500, durationMs: options.probeMs });
    probes.forEach((probe, position) => {
      const index = probed[position]!;
      results[index]!.probe = probe;
      console.error(
        `${targets[index]!.target.name} probe: headers ${probe.p50.headers.toFixed(3)} ms, first byte ${probe.p50.firstByte.toFixed(3)} ms, first delta ${probe.p50.firstDelta.toFixed(3)} ms, end ${probe.p50.end.toFixed(3)} ms (${probe.requests} requests, ${probe.failures} failures)`,
      );
    });
  }
  samplers.forEach((sampler, index) => (results[index]!.peakBytes = sampler.stop()));
  await new Promise((resolve) => setTimeout(resolve, 2000));
  samplers.forEach((sampler, index) => (results[index]!.afterBytes = sampler.sample()));
  return results;
}
