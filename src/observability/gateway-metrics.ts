/**
 * The gateway's Prometheus metrics (prom-client), updated from generation records off the request path.
 * Labels are bounded: outcomes, HTTP statuses, catalog model and provider slugs (anything else is `other`),
 * failure classes and destination kinds; never ids, keys or users. With `SWITCHBOARD_WORKERS` the scrape sums
 * every worker's registry (cluster-metrics.ts): each metric here takes prom-client's default aggregator,
 * `sum`, which is right for counters, histograms and queue depths alike.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { TallyCounter } from '#src/observability/tally-counter.ts';
import { TallyHistogram } from '#src/observability/tally-histogram.ts';

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/** Where queue depths are read from at scrape time. */
export interface QueueDepths {
  records(): number;
  broadcast(): Record<string, number>;
}

/** The metrics of one gateway process. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly modelSlug: (name: string) => string | undefined;
  private readonly isKnownProvider: (slug: string) => boolean;
  private readonly requests;
  private readonly duration;
  private readonly timeToFirstByte;
  private readonly tokens;
  private readonly cost;
  private readonly failovers;
  private readonly upstreamErrors;
  private readonly stickyPinHits;
  readonly recordsWritten;
  readonly recordsDropped;
  readonly broadcastSent;
  readonly broadcastDropped;

  /**
   * `modelSlug` gives the catalog slug a request's model names, its slug or an alias (a bare Anthropic id), or
   * undefined for a model the catalog does not know.
   */
  constructor(options: { modelSlug(name: string): string | undefined; isKnownProvider(slug: string): boolean; depths: QueueDepths }) {
    this.modelSlug = options.modelSlug;
    this.isKnownProvider = options.isKnownProvider;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const registry = this.registry;
    this.requests = new TallyCounter({ name: 'switchboard_requests_total', help: 'Finished /messages requests.', labelNames: ['outcome', 'code', 'model', 'provider'] as const, registry });
    this.duration = new TallyHistogram({ name: 'switchboard_request_duration_seconds', help: 'Time from a /messages request to the end of its answer.', labelNames: ['outcome', 'stream', 'provider'] as const, buckets: LATENCY_BUCKETS, registry });
    this.timeToFirstByte = new TallyHistogram({ name: 'switchboard_time_to_first_byte_seconds', help: 'Time from a /messages request to the first byte of its answer.', labelNames: ['stream', 'provider'] as const, buckets: LATENCY_BUCKETS, registry });
    this.tokens = new TallyCounter({ name: 'switchboard_tokens_total', help: 'Tokens of answered requests, by type.', labelNames: ['type', 'model', 'provider'] as const, registry });
    this.cost = new TallyCounter({ name: 'switchboard_cost_usd_total', help: 'Cost of answered requests in USD (usage.cost).', labelNames: ['model', 'provider'] as const, registry });
    this.failovers = new TallyCounter({ name: 'switchboard_failovers_total', help: 'Moves to the next attempt after a failed one, by what failed.', labelNames: ['reason'] as const, registry });
    this.upstreamErrors = new TallyCounter({ name: 'switchboard_upstream_errors_total', help: 'Failed upstream attempts, by provider and failure class.', labelNames: ['provider', 'class'] as const, registry });
    this.stickyPinHits = new TallyCounter({ name: 'switchboard_sticky_pin_hits_total', help: 'Requests routed by a sticky-session pin.', labelNames: ['provider'] as const, registry });
    this.recordsWritten = new Counter({ name: 'switchboard_generation_records_written_total', help: 'Generation records written to the database.', registers });
    this.recordsDropped = new Counter({ name: 'switchboard_generation_records_dropped_total', help: 'Generation records dropped (queue full, or rejected by the database).', labelNames: ['reason'] as const, registers });
    this.broadcastSent = new Counter({ name: 'switchboard_broadcast_sent_total', help: 'Generations delivered to broadcast destinations.', labelNames: ['kind'] as const, registers });
    this.broadcastDropped = new Counter({ name: 'switchboard_broadcast_dropped_total', help: 'Generations not delivered: queue full, delivery failed (after retries, where a retry may pass), or rejected by the destination (Langfuse per-event errors).', labelNames: ['kind', 'reason'] as const, registers });
    new Gauge({
      name: 'switchboard_generation_records_queue_depth',
      help: 'Generation records waiting to be written.',
      registers,
      collect() {
        this.set(options.depths.records());
      },
    });
    new Gauge({
      name: 'switchboard_broadcast_queue_depth',
      help: 'Generations waiting for delivery, by destination kind.',
      labelNames: ['kind'] as const,
      registers,
      collect() {
        this.reset();
        for (const [kind, depth] of Object.entries(options.depths.broadcast())) this.set({ kind }, depth);
      },
    });
  }

  /** Updates the request metrics from one record and the attempts and strategy of its outcome. */
  observe(record: GenerationRecord, outcome: Pick<GenerationOutcome, 'attempts' | 'strategy'>): void {
    const { strategy, attempts } = outcome;
    const model = this.modelLabel(record.model ?? record.requestedModel);
    const provider = this.providerLabel(record.provider);
    const stream = record.stream ? 'true' : 'false';
    this.requests.inc([record.status, String(record.httpStatus), model, provider]);
    this.duration.observe([record.status, stream, provider], record.totalMs / 1000);
    if (record.timeToFirstByteMs !== null) this.timeToFirstByte.observe([stream, provider], record.timeToFirstByteMs / 1000);
    if (record.inputTokens > 0) this.tokens.inc(['input', model, provider], record.inputTokens);
    if (record.outputTokens > 0) this.tokens.inc(['output', model, provider], record.outputTokens);
    if (record.cacheReadTokens > 0) this.tokens.inc(['cache_read', model, provider], record.cacheReadTokens);
    if (record.cacheWriteTokens > 0) this.tokens.inc(['cache_write', model, provider], record.cacheWriteTokens);
    if (record.reasoningTokens > 0) this.tokens.inc(['reasoning', model, provider], record.reasoningTokens);
    if (record.cost > 0) this.cost.inc([model, provider], record.cost);
    if (strategy !== null && (strategy === 'sticky' || strategy.endsWith(':sticky'))) this.stickyPinHits.inc([provider]);
    attempts.forEach((record, index) => {
      // Only calls that reached an upstream and failed; a skipped endpoint is not an upstream error.
      if (record.status === 'success' || record.status === 'refusal' || record.status === 'unsupported' || record.status === 'credential_unavailable') return;
      this.upstreamErrors.inc([this.providerLabel(record.attempt.provider.slug), record.status]);
      if (index < attempts.length - 1) this.failovers.inc([record.status]);
    });
  }

  // A request that failed has no served model, only the name it asked for: an alias of a catalog model (what
  // Claude Code sends) counts under the slug its successes count under, not under `other`.
  private modelLabel(name: string): string {
    return this.modelSlug(name) ?? 'other';
  }

  private providerLabel(slug: string | null): string {
    if (slug === null) return 'none';
    return this.isKnownProvider(slug) ? slug : 'other';
  }
}
