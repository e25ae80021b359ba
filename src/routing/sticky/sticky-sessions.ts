/**
 * Sticky sessions: every request of a conversation goes to the provider (and key) that served it, so that the
 * provider's prompt cache stays warm. The pin is refreshed on success, expires after an idle time and is
 * dropped when its provider fails, so the next request re-routes.
 */
import type { ToolResultBlockParam } from '#src/api-types.ts';
import type { Logger } from '#src/logger.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';
import type { SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';

/**
 * The pin that records an attempt which answered (and, for a thread pin, the upstream answer to resume from and
 * the results of the calls it left unanswered).
 */
export function pinFor(attempt: Pick<Attempt, 'model' | 'provider' | 'credential'>, messageId?: string, pendingResults?: readonly ToolResultBlockParam[]): StickyPin {
  const pin: StickyPin = {
    provider: attempt.provider.slug,
    credentialId: attempt.credential.kind === 'byok' ? attempt.credential.credentialId : null,
    model: attempt.model,
  };
  if (messageId !== undefined) pin.messageId = messageId;
  if (pendingResults !== undefined && pendingResults.length > 0) pin.pendingResults = pendingResults.slice();
  return pin;
}

/**
 * Sticky-session bookkeeping around a pin store. Store failures never fail a request: they are logged and the
 * request proceeds without a pin.
 */
export class StickySessions {
  readonly #store: SessionPinStore;
  readonly #threadStore: SessionPinStore;
  readonly #ttlMs: number;
  readonly #threadTtlMs: number;
  readonly #logger: Logger;

  /**
   * `threadTtlMs`: how long a thread pin lasts (the session idle time when absent); `threadStore`: where thread
   * pins live (`store` when absent), bounded apart so that session pins never evict them.
   */
  constructor(options: { store: SessionPinStore; threadStore?: SessionPinStore; ttlMs: number; threadTtlMs?: number; logger: Logger }) {
    this.#store = options.store;
    this.#threadStore = options.threadStore ?? options.store;
    this.#ttlMs = options.ttlMs;
    this.#threadTtlMs = options.threadTtlMs ?? options.ttlMs;
    this.#logger = options.logger;
  }

  /** The session pin for a key, or null. */
  lookup(key: string): Promise<StickyPin | null> {
    // #read's own promise, passed on: an async function returning a promise resolves its own through a thenable
    // job (two more microtask turns and two more promises per request).
    return this.#read(this.#store, key);
  }

  /** The thread pin for a key (from `threadPinKey`), or null. */
  lookupThread(key: string): Promise<StickyPin | null> {
    return this.#read(this.#threadStore, key);
  }

  async #read(store: SessionPinStore, key: string): Promise<StickyPin | null> {
    try {
      return (await store.get(key)) ?? null;
    } catch (error) {
      this.#logger.warn('sticky pin lookup failed; routing without a pin', { error });
      return null;
    }
  }

  /**
   * Pins the session to the attempt that answered and restarts its idle time; `messageId`, for a thread pin,
   * is the upstream answer a continue resumes from when it is not the pinned id.
   */
  async succeeded(key: string, attempt: Pick<Attempt, 'model' | 'provider' | 'credential'>, messageId?: string): Promise<void> {
    await this.#pin(this.#store, key, pinFor(attempt, messageId), this.#ttlMs);
  }

  /**
   * Pins a thread's answer (the key from `threadPinKey`) to the attempt that answered, for the thread pin's own
   * lifetime: a continue that finds no pin is never sent to a shared key, so a thread pin outlives a session's.
   * `pendingResults`: the results the continue must start with (see `StickyPin`).
   */
  async threadAnswered(
    key: string,
    attempt: Pick<Attempt, 'model' | 'provider' | 'credential'>,
    messageId?: string,
    pendingResults?: readonly ToolResultBlockParam[],
  ): Promise<void> {
    await this.#pin(this.#threadStore, key, pinFor(attempt, messageId, pendingResults), this.#threadTtlMs);
  }

  // Every answered request comes here: the store is called directly, with no closure made for a guard.
  async #pin(store: SessionPinStore, key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    try {
      await store.set(key, pin, ttlMs);
    } catch (error) {
      this.#logger.warn('sticky pin refresh failed', { error });
    }
  }

  /**
   * Drops the pin when the failed attempt is the pinned provider, so the next request re-routes; only while the
   * store still holds that pin, as another request may have re-pinned the session since this one read it.
   */
  async failed(key: string, pin: StickyPin | null, attempt: Pick<Attempt, 'provider'>): Promise<void> {
    if (pin === null || pin.provider !== attempt.provider.slug) return;
    try {
      await this.#store.delete(key, pin);
    } catch (error) {
      this.#logger.warn('sticky pin drop failed', { error });
    }
  }
}
