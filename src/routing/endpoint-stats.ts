/**
 * What the gateway measured on recent calls to each endpoint: latency (time to the answer, or to the first
 * event of a stream) and output throughput, as exponentially weighted moving averages. In-process: each
 * instance sorts by what it has seen itself.
 */
import type { EndpointStats } from '#src/routing/plan-types.ts';

// Weight of the newest sample: about the last ten calls dominate.
const ALPHA = 0.2;

/** Per-endpoint moving averages, keyed `${model}|${provider}` as the planner reads them. */
export class EndpointStatsTracker {
  readonly #stats = new Map<string, EndpointStats>();

  /** The live map the planner reads; never copied per request. */
  get snapshot(): ReadonlyMap<string, EndpointStats> {
    return this.#stats;
  }

  /** Records one successful call. */
  record(model: string, provider: string, sample: { latencyMs: number; outputTokens?: number; durationMs?: number }): void {
    const key = `${model}|${provider}`;
    const current = this.#stats.get(key) ?? {};
    const next: EndpointStats = { latencyMs: average(current.latencyMs, sample.latencyMs) };
    const throughput = sample.outputTokens && sample.durationMs ? (sample.outputTokens * 1000) / sample.durationMs : undefined;
    const merged = throughput === undefined ? current.throughputTokensPerSecond : average(current.throughputTokensPerSecond, throughput);
    if (merged !== undefined) next.throughputTokensPerSecond = merged;
    this.#stats.set(key, next);
  }
}

function average(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + ALPHA * (sample - previous);
}
