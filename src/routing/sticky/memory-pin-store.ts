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

/**
 * The bytes a pin takes as stored: its JSON text in UTF-8 (what Redis holds; in process, about what its
 * strings take). A thread pin's `pendingResults` are most of it.
 */
export function pinBytes(pin: StickyPin): number {
  return Buffer.byteLength(JSON.stringify(pin));
}

/**
 * An in-process pin store: a map with per-entry expiry, evicting the least recently written entry when full:
 * past `maxEntries` entries, or, with `maxBytes`, past that many bytes of pins (pinBytes). A pin larger than
 * `maxBytes` alone is not kept.
 */
export class MemoryPinStore implements SessionPinStore {
  readonly #entries = new Map<string, { pin: StickyPin; expiresAt: number; bytes: number }>();
  readonly #maxEntries: number;
  readonly #maxBytes: number | undefined;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: { maxEntries?: number; maxBytes?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#maxBytes = options.maxBytes;
    this.#now = options.now ?? Date.now;
  }

  /** Entries currently held, expired ones included until they are next read. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of the pins held (counted only with `maxBytes`), expired ones included until they are next read. */
  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<StickyPin | undefined> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#remove(key);
      return undefined;
    }
    return entry.pin;
  }

  async set(key: string, pin: StickyPin, ttlMs: number): Promise<void> {
    // Re-inserting moves the key to the end of the map's order, so the first key is the least recently written.
    this.#remove(key);
    // Measured only when bounded: session pins (no maxBytes) are small and written on every answer.
    const bytes = this.#maxBytes === undefined ? 0 : pinBytes(pin);
    if (this.#maxBytes !== undefined && bytes > this.#maxBytes) return;
    this.#entries.set(key, { pin, expiresAt: this.#now() + ttlMs, bytes });
    this.#bytes += bytes;
    while (this.#entries.size > this.#maxEntries || (this.#maxBytes !== undefined && this.#bytes > this.#maxBytes)) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#remove(oldest.value);
    }
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  async delete(key: string, expected?: StickyPin): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry !== undefined && (expected === undefined || samePin(entry.pin, expected))) this.#remove(key);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#bytes = 0;
  }
}
