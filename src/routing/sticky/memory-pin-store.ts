/**
 * Where sticky-session pins live: the store interface, and the in-process store used when no Redis is
 * configured (one gateway instance).
 */
import type { StickyPin } from '#src/routing/plan-types.ts';

/** Whether two pins send a session to the same place (a pin without a model is an older one's shape). */
export function samePin(left: StickyPin, right: StickyPin): boolean {
  return left.provider === right.provider && left.credentialId === right.credentialId && left.model === right.model;
}

/** Where pins live: in-process by default, Redis when several gateway instances share them. */
export interface SessionPinStore {
  /** The pin under `key`, or undefined when there is none (or the store cannot be reached). */
  get(key: string): Promise<StickyPin | undefined>;
  /** Stores the pin for `ttlMs` milliseconds from now, replacing any earlier one. */
  set(key: string, pin: StickyPin, ttlMs: number): Promise<void>;
  /**
   * Drops the pin under `key`; with `expected`, only while it is still that pin: a failure seen by one request
   * must not drop the pin another request (or instance) wrote meanwhile, once the session moved on.
   */
  delete(key: string, expected?: StickyPin): Promise<void>;
  /** Releases connections, if any. */
  close(): Promise<void>;
}

/** An in-process pin store: a map with per-entry expiry, evicting the least recently written entry when full. */
export class MemoryPinStore implements SessionPinStore {
  readonly #entries = new Map<string, { pin: StickyPin; expiresAt: number }>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** Entries currently held, expired ones included until they are next read. */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<StickyPin | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.pin;
  }

  async set(key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    // Re-inserting moves the key to the end of the map's order, so the first key is the least recently written.
    this.#entries.delete(key);
    this.#entries.set(key, { pin, expiresAt: this.#now() + ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  async delete(key: string, expected?: StickyPin): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && (expected === undefined || samePin(entry.pin, expected))) this.#entries.delete(key);
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
