/**
 * One destination's delivery queue: bounded, drained by one worker in batches of the sender's size. A batching
 * sender's batch waits until it is full or its oldest item has waited `LINGER_MS`, before every export and not
 * only the first: under a steady load the items that came in while an export was in flight would otherwise go
 * out at once in an export of their own, a few generations paying each export's fixed cost (bench/JOURNAL.md,
 * 2026-11-28 14:30). The sender starts warming (loading its exporter) when the channel opens, and until its
 * first delivery ends the queue holds one full batch more than its limit: a cold first export (code loading, a
 * serializer not yet compiled, a new connection) filled the queue under load and dropped what followed
 * (bench/JOURNAL.md, 2026-11-28 16:00). Still bounded: by the limit, plus while cold one batch of at most the
 * limit. A full queue drops new items (counted); a failed delivery drops its batch, and items a destination
 * refused are dropped as `rejected` (both counted, and logged at most every ten seconds per destination).
 * Closing (the destination deleted, disabled or changed) stops the sender at once and counts every item once.
 * At the gateway's shutdown the channel flushes instead (`flushAndClose`): what it holds leaves at once in full
 * batches, one try each, until its budget is spent; only what is left then is dropped. Nothing here is ever
 * awaited by a request.
 */
import { withoutSecrets, type Logger } from '#src/logger.ts';
import { destinationSecretValues, type ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { BroadcastHooks, TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import type { Sender, SendResult } from '#src/observability/broadcast/sender.ts';

// How long a batching sender's oldest waiting item waits for its batch to fill (an export in flight aside):
// under load a batch is full sooner; idle, a span is 0.2 s late.
const LINGER_MS = 200;

/** The channel of one destination revision. */
export class DeliveryChannel {
  readonly destination: ActiveDestination;
  private readonly sender: Sender;
  private readonly limit: number;
  private readonly hooks: BroadcastHooks;
  private readonly logger: Logger;
  private queue: TracedItem[] = [];
  private worker: Promise<void> | undefined;
  private closed = false;
  // Aborted on close, or when the shutdown's flush budget is spent: the sender starts no attempt after it.
  private readonly stop = new AbortController();
  // Aborted when the shutdown's flush begins: no retry, and no batch lingers.
  private readonly lastTry = new AbortController();
  private readonly signals = { stop: this.stop.signal, lastTry: this.lastTry.signal };
  private lastFailureLog = 0;
  // The items at the queue's head that are the batch in flight; the rest wait for the next batch.
  private taken = 0;
  // When the oldest item waiting for the next batch arrived (performance.now()).
  private waitingSince = 0;
  // Ends the worker's wait for a batch to fill: the batch filled, or the channel closed.
  private lingerEnd: (() => void) | undefined;
  // Until the sender's first delivery ends: the queue then holds one full batch more than its limit.
  private cold = true;

  constructor(options: { destination: ActiveDestination; sender: Sender; limit: number; hooks: BroadcastHooks; logger: Logger }) {
    this.destination = options.destination;
    this.sender = options.sender;
    this.limit = options.limit;
    this.hooks = options.hooks;
    this.logger = options.logger;
    void this.sender.warm?.();
  }

  /** Items waiting (the batch in flight included). */
  get depth(): number {
    return this.queue.length;
  }

  /** Queues an item; drops it when the queue is full. */
  enqueue(item: TracedItem): void {
    if (this.closed) return;
    if (this.queue.length >= (this.cold ? this.limit + this.fullBatch() : this.limit)) {
      this.hooks.dropped(this.destination.kind, 'queue_full', 1);
      return;
    }
    if (this.queue.length === this.taken) this.waitingSince = performance.now();
    this.queue.push(item);
    if (this.lingerEnd && this.queue.length >= this.fullBatch()) this.lingerEnd();
    this.worker ??= this.run().finally(() => {
      this.worker = undefined;
    });
  }

  /**
   * Stops taking items and retrying, gives the attempt in flight up to `graceMs` to finish, then counts what
   * is left as dropped and closes the sender.
   */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    this.stop.abort();
    this.lingerEnd?.();
    await within(this.worker, graceMs);
    this.dropRest();
    await this.sender.close();
  }

  /**
   * Closes at the gateway's shutdown, after the last generation was offered: takes no new item, and sends
   * everything it holds at once (no linger), in full batches, one try each (the sender's `lastTry`: a batch
   * waiting to be retried gives up, later ones get no retry), for up to `budgetMs` in all. What is still
   * unsent then (a slow or dead destination) is dropped, counted as `failed` and logged, and the sender gets
   * what is left of the budget to close.
   */
  async flushAndClose(budgetMs: number): Promise<void> {
    const deadline = performance.now() + budgetMs;
    this.closed = true;
    this.lastTry.abort();
    this.lingerEnd?.();
    if (!(await within(this.worker, budgetMs))) {
      this.stop.abort();
      const left = this.queue.length;
      this.logger.warn('broadcast flush at shutdown ran out of time; generations dropped', { destination_id: this.destination.id, kind: this.destination.kind, items: left, budget_ms: budgetMs });
      this.dropRest();
    }
    await within(this.sender.close(), Math.max(0, deadline - performance.now()));
  }

  // Counts what the queue holds as dropped; a new array, so a batch still in flight sees that its items were
  // counted here (run).
  private dropRest(): void {
    if (this.queue.length > 0) this.hooks.dropped(this.destination.kind, 'failed', this.queue.length);
    this.queue = [];
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 && !this.stop.signal.aborted) {
      await this.linger();
      if (this.stop.signal.aborted) return;
      const { queue } = this;
      const batch = queue.slice(0, this.sender.batchSize);
      this.taken = batch.length;
      // Items left behind a full batch have waited already: the next batch goes without lingering.
      if (queue.length > batch.length) this.waitingSince = -Infinity;
      let failure: unknown;
      let result: SendResult | void = undefined;
      try {
        result = await this.sender.send(batch, this.signals);
      } catch (error) {
        failure = error ?? new Error('failed');
      }
      // close() stopped waiting for this batch and counted it with the rest of the queue.
      if (this.queue !== queue) return;
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
      queue.splice(0, batch.length);
      this.taken = 0;
      this.cold = false;
    }
  }

  /**
   * A batching sender waits a moment for company, one export per generation costing an HTTP request each:
   * until the next batch is full, or its oldest item has waited `LINGER_MS`. Nothing to wait for otherwise.
   */
  private linger(): Promise<void> | undefined {
    const size = this.fullBatch();
    if (size <= 1 || this.queue.length >= size || this.lastTry.signal.aborted) return undefined;
    const wait = LINGER_MS - (performance.now() - this.waitingSince);
    if (wait <= 0) return undefined;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.lingerEnd?.(), wait);
      this.lingerEnd = () => {
        clearTimeout(timer);
        this.lingerEnd = undefined;
        resolve();
      };
    });
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
