/**
 * Settlements that could not reach Redis (an outage, or one failed command), kept in order and replayed
 * into the shared counts when Redis answers again, so other instances do not see a finished request's hold
 * until it expires. Bounded: beyond the limit the oldest are dropped; their cost is in the database either
 * way, only the shared count misses it until the period's spending is seeded again.
 */
import type { Hold, LimitStore } from '#src/limits/limit-store.ts';
import type { UsageAmounts } from '#src/limits/usage-amounts.ts';
import type { Logger } from '#src/logger.ts';

/** How many settlements wait at most. */
export const REPLAY_LIMIT = 10_000;

/** One settlement to replay. */
export interface PendingSettlement {
  hold: Hold;
  actual: UsageAmounts;
  nowMs: number;
}

/** The replay queue of one limiter. */
export class SettlementReplay {
  #pending: PendingSettlement[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #store: () => LimitStore | undefined;
  readonly #available: () => boolean;
  readonly #logger: Logger;

  /** `store`: the shared store (none without Redis); `available`: whether Redis is connected now. */
  constructor(store: () => LimitStore | undefined, available: () => boolean, logger: Logger) {
    this.#store = store;
    this.#available = available;
    this.#logger = logger;
  }

  /** Settlements waiting. */
  get size(): number {
    return this.#pending.length;
  }

  /** Whether a settlement of hold `id` waits (an admission whose reply was lost gives back what it took under that id). */
  has(id: string): boolean {
    return this.#pending.some((entry) => entry.hold.id === id);
  }

  /** Queues one; a single failed command (Redis still up) is retried within a second. */
  queue(hold: Hold, actual: UsageAmounts, nowMs: number): void {
    if (this.#pending.length >= REPLAY_LIMIT) this.#pending.shift();
    this.#pending.push({ hold, actual, nowMs });
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#available()) void this.flush();
    }, 1_000);
    this.#timer.unref();
  }

  /** Replays every waiting settlement in order; the first that fails puts itself and the rest back. */
  async flush(): Promise<void> {
    const replay = this.#pending;
    this.#pending = [];
    for (const [index, entry] of replay.entries()) {
      try {
        await this.#store()?.settle(entry.hold, entry.actual, entry.nowMs);
      } catch {
        for (const left of replay.slice(index)) this.queue(left.hold, left.actual, left.nowMs);
        return;
      }
    }
    if (replay.length > 0) this.#logger.info('settlements that could not reach redis were replayed', { settlements: replay.length });
  }

  /** Stops the retry timer (shutdown). */
  stop(): void {
    clearTimeout(this.#timer);
  }
}
