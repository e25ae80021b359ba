/**
 * The broadcaster as the rest of the gateway sees it. The implementation (broadcaster.ts and the exporters
 * behind it) is loaded only once some workspace has a destination, so a gateway without destinations never
 * loads the OpenTelemetry packages.
 */
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
  dropped(kind: string, reason: 'queue_full' | 'failed', count: number): void;
}

/** Sizes and timings of delivery. */
export interface BroadcastSettings {
  /** Items one destination may hold waiting; beyond it new ones are dropped. */
  queueLimit: number;
  /** Time allowed for one delivery attempt. */
  timeoutMs: number;
  /** First retry delay of a webhook or Langfuse delivery; doubles on each retry. */
  retryBaseMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** The gateway's version, for the OpenTelemetry resource. */
  version: string;
}

/** The broadcaster. */
export interface Broadcaster {
  /** Queues the item for every destination that samples it; returns at once. */
  offer(item: BroadcastItem, destinations: readonly ActiveDestination[]): void;
  /** Opens channels for new or changed destinations and closes those gone. */
  sync(destinations: readonly ActiveDestination[]): void;
  /** Items waiting, by destination kind. */
  depths(): Record<string, number>;
  close(): Promise<void>;
}

/** Spans of at most this many generations go in one OTLP export. */
export const OTLP_BATCH_SIZE = 64;
