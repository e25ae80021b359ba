/**
 * Measures one target: every load scenario (mode × connections) with CPU snapshots around the measured
 * window, its RSS sampled throughout, then the sequential streaming probe; the V8 profiler optionally wraps
 * each measured window (single-process gateway).
 */
import { join } from 'node:path';
import type { ChildServer } from './child-process.ts';
import { runLoad } from './load-generator.ts';
import { RssSampler } from './process-stats.ts';
import { runStreamProbe, type ProbeResult } from './stream-probe.ts';
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

/** What to measure on a target. */
export interface MeasureOptions {
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
  probeMs: number;
  connectionCounts: readonly number[];
  /** `true` for streaming, `false` for JSON. */
  modes: readonly boolean[];
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

async function scenario(target: Target, upstream: ChildServer<unknown>, stream: boolean, connections: number, options: MeasureOptions): Promise<ScenarioResult> {
  const cpu = { measured: 0, upstream: 0, client: 0 };
  const load = await runLoad({
    origin: target.origin,
    path: target.path,
    headers: target.headers,
    body: requestBody(target.model, stream),
    connections,
    warmupMs: options.warmupMs,
    durationMs: options.durationMs,
    maxRequests: options.maxRequests,
    stream,
    async onMeasureStart() {
      if (options.profileDir) await target.child.startProfile();
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
      if (options.profileDir) await target.child.stopProfile(join(options.profileDir, `${target.name === 'gateway' ? 'gateway' : target.name.replace(/[^a-z0-9]+/g, '-')}-${stream ? 'stream' : 'json'}-${connections}.cpuprofile`));
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

/** Runs every scenario and the probe against one target, printing a line per scenario to stderr. */
export async function measureTarget(target: Target, upstream: ChildServer<unknown>, options: MeasureOptions): Promise<TargetMeasurement> {
  const sampler = new RssSampler(target.pid);
  sampler.start(250);
  const scenarios: ScenarioResult[] = [];
  for (const stream of options.modes) {
    for (const connections of options.connectionCounts) {
      const result = await scenario(target, upstream, stream, connections, options);
      scenarios.push(result);
      const { load } = result;
      console.error(
        `${target.name} ${stream ? 'stream' : 'json'} ${connections} conn: ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.p50Ms.toFixed(3)} ms, p99 ${load.p99Ms.toFixed(3)} ms, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/req, errors ${load.non2xx}/${load.failures}`,
      );
    }
  }
  let probe: ProbeResult | undefined;
  if (options.probe) {
    probe = await runStreamProbe({ origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.pacedModel, true), warmupMs: 500, durationMs: options.probeMs });
    console.error(
      `${target.name} probe: headers ${probe.p50.headers.toFixed(3)} ms, first byte ${probe.p50.firstByte.toFixed(3)} ms, first delta ${probe.p50.firstDelta.toFixed(3)} ms, end ${probe.p50.end.toFixed(3)} ms (${probe.requests} requests, ${probe.failures} failures)`,
    );
  }
  const peakBytes = sampler.stop();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  return { scenarios, probe, peakBytes, afterBytes: sampler.sample() };
}
