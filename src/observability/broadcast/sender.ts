/** What a delivery channel drives: one sender per destination, of the destination's kind. */
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';

/** Delivers batches of generations to one destination. */
export interface Sender {
  /** The most items one `send` takes. */
  readonly batchSize: number;
  /**
   * Delivers the items (retries included, until `signals` say otherwise); throws with a safe message when they
   * could not be delivered.
   */
  send(items: readonly TracedItem[], signals: DeliverySignals): Promise<SendResult | void>;
  /**
   * Starts loading what the first `send` needs (exporter code), as soon as the destination exists rather than
   * on its first batch; never rejects (a failure shows in `send`). Absent when there is nothing to load.
   */
  warm?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * When a sender gives up. `stop` aborts when the destination is deleted, disabled or changed, or when the
 * shutdown's flush budget is spent: no attempt starts after it. `lastTry` aborts when the gateway shuts down:
 * each delivery then gets the attempt it is making or its first one, and no retry (a retry's backoff would
 * outlast the flush budget, and hold the batches behind it).
 */
export interface DeliverySignals {
  stop: AbortSignal;
  lastTry: AbortSignal;
}

/**
 * A delivery the destination took but partly refused (Langfuse's 207 with per-event errors): how many of
 * the items it refused, and a safe description of why (the destination's own message, no secret).
 */
export interface SendResult {
  rejected: number;
  reason: string;
}

/** A delivery that failed after its retries; the message names no secret. */
export class DeliveryFailedError extends Error {}
