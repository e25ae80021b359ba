/**
 * The broadcaster as the rest of the gateway sees it. The implementation (broadcaster.ts and the exporters
 * behind it) is loaded only once some workspace has a destination, so a gateway without destinations never
 * loads the OpenTelemetry packages.
 */
import type { DestinationNetwork } from '#src/observability/destinations/destination-address.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { TraceContext } from '#src/observability/broadcast/trace-context.ts';

/** One generation to broadcast: its record and the outcome it was built from (for request parameters and content). */
export interface BroadcastItem {
  record: GenerationRecord;
  outcome: GenerationOutcome;
}

/** An item with its trace context, resolved once when offered and shared by every destination. */
export interface TracedItem extends BroadcastItem {
  trace: TraceContext;
}

/** Counters the broadcaster reports to. */
export interface BroadcastHooks {
  sent(kind: string, count: number): void;
  /** `rejected`: the destination answered but refused the items (Langfuse's per-event errors). */
  dropped(kind: string, reason: 'queue_full' | 'failed' | 'rejected', count: number): void;
}

/** Sizes and timings of delivery. */
export interface BroadcastSettings {
  /** Items one destination may hold waiting, besides one batch in flight; beyond it new ones are dropped. */
  queueLimit: number;
  /** Time allowed for one delivery attempt. */
  timeoutMs: number;
  /** First retry delay of a webhook or Langfuse delivery; doubles on each retry. */
  retryBaseMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** The gateway's version, for the OpenTelemetry resource. */
  version: string;
  /** Which addresses deliveries may connect to, and the connections that enforce it (SSRF guard). */
  network: DestinationNetwork;
}

/** The broadcaster. */
export interface Broadcaster {
  /** Queues the item for every destination that samples it; returns at once. */
  offer(item: BroadcastItem, destinations: readonly ActiveDestination[]): void;
  /** Opens channels for new or changed destinations and closes those gone. */
  sync(destinations: readonly ActiveDestination[]): void;
  /** Items waiting, by destination kind. */
  depths(): Record<string, number>;
  /**
   * At shutdown, once no generation is offered any more: every destination sends what it holds, at once and
   * without retries, for up to `flushBudgetMs` (shutdownFlushBudgetMs); what is left then is dropped.
   */
  close(flushBudgetMs: number): Promise<void>;
}

/** The shortest and longest time the broadcast flush at shutdown may take. */
const FLUSH_BUDGET_MS = { min: 1_000, max: 5_000 } as const;

/**
 * How long the destinations may take to send what they hold at shutdown: what is left of the shutdown grace
 * period, between 1 and 5 s. A few seconds send a full queue to a healthy destination many times over (an
 * export of 512 generations takes well under a second); capped because the grace period is usually set just under
 * the orchestrator's (Kubernetes kills at 30 s, the default grace is 25 s), at least 1 s so that a drain that
 * used the whole grace still sends the last generations to a destination that answers.
 */
export function shutdownFlushBudgetMs(remainingGraceMs: number): number {
  return Math.min(FLUSH_BUDGET_MS.max, Math.max(FLUSH_BUDGET_MS.min, remainingGraceMs));
}

/**
 * Spans of at most this many generations go in one OTLP export (the BatchSpanProcessor's default export batch
 * is 512 spans). Each export has a fixed cost (an HTTP request, the resource and scope serialized again): at
 * 64 a generation cost about 39 µs of CPU in the exporter path, at 512 about 30 µs.
 */
export const OTLP_BATCH_SIZE = 512;
