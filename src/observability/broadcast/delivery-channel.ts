/**
 * One destination's delivery queue: bounded, drained in batches of the sender's size, at most two at once
 * while running (MAX_IN_FLIGHT; the shutdown's flush starts everything it holds). A batching sender's batch waits until it is full or its oldest item has waited `LINGER_MS`,
 * before every export and not only the first: under a steady load the items that came in while an export was
 * in flight would otherwise go out at once in an export of their own, a few generations paying each export's
 * fixed cost (bench/JOURNAL.md, 2026-11-28 14:30). The sender starts warming (loading its exporter) when the
 * channel opens. The queue holds one full batch more than its limit: the batch in flight does not count against
 * it, so that a full batch can wait behind it and go beside it (with the default limit of 1,000 and batches of
 * 512 a second batch could never fill otherwise), and so that a cold first export (code loading, a serializer
 * not yet compiled, a new connection) does not fill the queue under load (bench/JOURNAL.md, 2026-11-28 16:00;
 * until 2026-11-28 18:20 that extra batch was held only until the first delivery ended). Still bounded: by the
 * limit plus one batch of at most the limit. A full queue drops new items (counted); a failed delivery drops
 * its batch, and items a destination refused are dropped as `rejected` (both counted, and logged at most every
 * ten seconds per destination). Closing (the destination deleted, disabled or changed) stops the sender at once
 * and counts every item once. At the gateway's shutdown the channel flushes instead (`flushAndClose`): what it
 * holds leaves at once in full batches, one try each, until its budget is spent; only what is left then is
 * dropped. Nothing here is ever awaited by a request.
 */
import { withoutSecrets, type Logger } from '#src/logger.ts';
import { destinationSecretValues, type ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { BroadcastHooks, TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import type { Sender, SendResult } from '#src/observability/broadcast/sender.ts';

// How long a batching sender's oldest waiting item waits for its batch to fill (an export in flight aside):
// under load a batch is full sooner; idle, a span is 0.2 s late.
const LINGER_MS = 200;

// Deliveries in flight at once. A second starts only when a full batch waits behind the first: one export at a
// time fell behind at about 2,000 generations a second on a loaded machine, where an export (serializing 512
// generations, then the collector's answer) took over 0.25 s (bench/JOURNAL.md, 2026-11-28 15:33). Two let one
// batch be serialized, on this thread, while the other waits on the network and the collector. More would not
// serialize faster (one thread does it all), would hold more batches' memory, and would press harder on a
// collector that is already slow to answer.
const MAX_IN_FLIGHT = 2;

/** The channel of one destination revision. */
export class DeliveryChannel {
  readonly destination: ActiveDestination;
  private readonly sender: Sender;
  private readonly limit: number;
  private readonly hooks: BroadcastHooks;
  private readonly logger: Logger;
  // Items not yet in a batch, oldest first.
  private waiting: TracedItem[] = [];
  // The batches being delivered and not yet counted; close() counts those it gives up on and removes them.
  private readonly inFlight = new Set<readonly TracedItem[]>();
  private inFlightItems = 0;
  private closed = false;
  // Aborted on close, or when the shutdown's flush budget is spent: the sender starts no attempt after it.
  private readonly stop = new AbortController();
  // Aborted when the shutdown's flush begins: no retry, and no batch lingers.
  private readonly lastTry = new AbortController();
  private readonly signals = { stop: this.stop.signal, lastTry: this.lastTry.signal };
  private lastFailureLog = 0;
  // When the oldest waiting item arrived (performance.now()); -Infinity for items left behind a full batch.
  private waitingSince = 0;
  // Starts the waiting batch once its oldest item has lingered long enough.
  private lingerTimer: NodeJS.Timeout | undefined;
  // Whoever waits for the deliveries to end (close and flushAndClose).
  private idleWaiters: (() => void)[] = [];

  constructor(options: { destination: ActiveDestination; sender: Sender; limit: number; hooks: BroadcastHooks; logger: Logger }) {
    this.destination = options.destination;
    this.sender = options.sender;
    this.limit = options.limit;
    this.hooks = options.hooks;
    this.logger = options.logger;
    void this.sender.warm?.();
  }

  /** Items held (the batches in flight included). */
  get depth(): number {
    return this.waiting.length + this.inFlightItems;
  }

  /** Queues an item; drops it when the queue is full. */
  enqueue(item: TracedItem): void {
    if (this.closed) return;
    if (this.depth >= this.limit + this.fullBatch()) {
      this.hooks.dropped(this.destination.kind, 'queue_full', 1);
      return;
    }
    if (this.waiting.length === 0) this.waitingSince = performance.now();
    this.waiting.push(item);
    // Only these can start a batch: a first waiting item (alone, it goes or lingers) and a batch just full.
    if (this.waiting.length === 1 || this.waiting.length === this.fullBatch()) this.pump();
  }

  /**
   * Stops taking items and retrying, gives the attempts in flight up to `graceMs` to finish, then counts what
   * is left as dropped and closes the sender.
   */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    this.stop.abort();
    clearTimeout(this.lingerTimer);
    await within(this.whenIdle(), graceMs);
    this.dropRest();
    await this.sender.close();
  }

  /**
   * Closes at the gateway's shutdown, after the last generation was offered: takes no new item, and sends
   * everything it holds at once (no linger, beside the deliveries in flight however many), in full batches,
   * one try each (the sender's `lastTry`: a batch waiting to be retried gives up when its wait ends, later
   * ones get no retry), for up to `budgetMs` in all. What is still
   * unsent then (a slow or dead destination) is dropped, counted as `failed` and logged, and the sender gets
   * what is left of the budget to close.
   */
  async flushAndClose(budgetMs: number): Promise<void> {
    const deadline = performance.now() + budgetMs;
    this.closed = true;
    this.lastTry.abort();
    this.pump();
    if (!(await within(this.whenIdle(), budgetMs))) {
      this.stop.abort();
      this.logger.warn('broadcast flush at shutdown ran out of time; generations dropped', { destination_id: this.destination.id, kind: this.destination.kind, items: this.depth, budget_ms: budgetMs });
      this.dropRest();
    }
    await within(this.sender.close(), Math.max(0, deadline - performance.now()));
  }

  /**
   * Starts what may start: a full batch, while fewer than MAX_IN_FLIGHT are in flight; a batch not full only
   * when nothing is in flight and its oldest item has lingered `LINGER_MS` (a batching sender waits a moment
   * for company, each export costing an HTTP request). When flushing, everything held, at once.
   */
  private pump(): void {
    // Flushing, every batch held starts at once: a delivery in flight may be stuck in its sender's retry delay
    // (OpenTelemetry's exporter waits out a Retry-After on a timer of its own), and what waits behind it must
    // not wait for that. The queue's bound (the limit plus a batch) bounds these deliveries too.
    const flushing = this.lastTry.signal.aborted;
    while (this.waiting.length > 0 && (this.inFlight.size < MAX_IN_FLIGHT || flushing) && !this.stop.signal.aborted) {
      const size = this.fullBatch();
      if (this.waiting.length < size && !this.lastTry.signal.aborted) {
        if (this.inFlight.size > 0) return;
        const wait = LINGER_MS - (performance.now() - this.waitingSince);
        if (size > 1 && wait > 0) {
          this.lingerTimer ??= setTimeout(() => {
            this.lingerTimer = undefined;
            this.pump();
          }, wait);
          return;
        }
      }
      clearTimeout(this.lingerTimer);
      this.lingerTimer = undefined;
      const batch = this.waiting.splice(0, this.sender.batchSize);
      // Items left behind a full batch have waited already: their batch goes without lingering.
      if (this.waiting.length > 0) this.waitingSince = -Infinity;
      void this.deliver(batch);
    }
  }

  private async deliver(batch: readonly TracedItem[]): Promise<void> {
    this.inFlight.add(batch);
    this.inFlightItems += batch.length;
    let failure: unknown;
    let result: SendResult | void = undefined;
    try {
      result = await this.sender.send(batch, this.signals);
    } catch (error) {
      failure = error ?? new Error('failed');
    }
    // close() stopped waiting for this batch and counted it with the rest.
    if (!this.inFlight.delete(batch)) return;
    this.inFlightItems -= batch.length;
    if (failure === undefined) {
      const rejected = Math.min(result?.rejected ?? 0, batch.length);
      if (rejected < batch.length) this.hooks.sent(this.destination.kind, batch.length - rejected);
      if (rejected > 0) {
        this.hooks.dropped(this.destination.kind, 'rejected', rejected);
        this.logFailure('broadcast destination refused generations; dropped', rejected, result?.reason ?? 'refused');
      }
    } else {
      this.hooks.dropped(this.destination.kind, 'failed', batch.length);
      this.logFailure('broadcast delivery failed; generations dropped', batch.length, (failure as Error).message);
    }
    this.pump();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  // Nothing in flight, and nothing waiting that may still go.
  private isIdle(): boolean {
    return this.inFlight.size === 0 && (this.waiting.length === 0 || this.stop.signal.aborted);
  }

  private whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // Counts what the channel holds, waiting or in flight, as dropped; a batch in flight finds itself gone from
  // `inFlight` when it ends, and is not counted again (deliver).
  private dropRest(): void {
    const left = this.depth;
    if (left > 0) this.hooks.dropped(this.destination.kind, 'failed', left);
    this.waiting = [];
    this.inFlight.clear();
    this.inFlightItems = 0;
  }

  /**
   * A batch is full at the sender's size, or sooner when the queue limit is smaller: a queue that cannot grow
   * must not wait for a batch it cannot hold while it drops what comes in.
   */
  private fullBatch(): number {
    return Math.min(this.sender.batchSize, this.limit);
  }

  // At most one line every ten seconds per destination: a dead or refusing destination must not flood the log.
  private logFailure(message: string, items: number, reason: string): void {
    const now = Date.now();
    if (this.stop.signal.aborted || now - this.lastFailureLog < 10_000) return;
    this.lastFailureLog = now;
    // A refusal's words may quote what the destination was sent (a header, the endpoint's query token).
    const said = withoutSecrets(reason, destinationSecretValues(this.destination));
    this.logger.warn(message, { destination_id: this.destination.id, kind: this.destination.kind, items, reason: said });
  }
}

/** Waits for `work` up to `ms`; whether it ended in time (a rejection counts as ended). */
async function within(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([work.then(() => true, () => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return ended;
}
