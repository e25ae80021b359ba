/**
 * Sticky sessions: every request of a conversation goes to the provider (and key) that served it, so that the
 * provider's prompt cache stays warm. The pin is refreshed on success, expires after an idle time and is
 * dropped when its provider fails, so the next request re-routes.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { MessageRequest } from '#src/api-types.ts';
import type { Logger } from '#src/logger.ts';
import type { PlannedAttempt, StickyPin } from '#src/routing/plan-types.ts';
import { systemText } from '#src/routing/request-parameters.ts';

/** Where pins live: in-process by default, Redis when several gateway instances share them. */
export interface SessionPinStore {
  /** The pin under `key`, or undefined when there is none (or the store cannot be reached). */
  get(key: string): Promise<StickyPin | undefined>;
  /** Stores the pin for `ttlMs` milliseconds from now, replacing any earlier one. */
  set(key: string, pin: StickyPin, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
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

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}

/** Where a sticky key came from, for logs and metadata. */
export type StickySource = 'session_id' | 'x-session-id' | 'x-claude-code-session-id' | 'content';

/** A session's key in the pin store, scoped to one account and one requested model. */
export interface StickyKey {
  key: string;
  source: StickySource;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function firstUserContent(request: MessageRequest): string {
  const first = request.messages.find((message) => message.role === 'user');
  if (first === undefined) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
}

/**
 * The sticky key of a request: the body's `session_id`, else the `x-session-id` header (the body wins), else
 * Claude Code's `x-claude-code-session-id`, else a hash of the first system text and the first user message,
 * so a conversation keeps one key as it grows. The key is scoped by account (tenants never share pins) and by
 * requested model (one session may call several models, each with its own cache).
 */
export function stickyKey(request: MessageRequest, headers: IncomingHttpHeaders, caller: { accountId: string }): StickyKey {
  const explicit: Array<[StickySource, string | undefined]> = [
    ['session_id', request.session_id === '' ? undefined : request.session_id],
    ['x-session-id', headerValue(headers, 'x-session-id')],
    ['x-claude-code-session-id', headerValue(headers, 'x-claude-code-session-id')],
  ];
  const found = explicit.find(([, value]) => value !== undefined);
  const [source, value] = found ?? ['content', `${systemText(request)}\u0000${firstUserContent(request)}`];
  const digest = createHash('sha256').update(`${request.model}\u0000${source === 'content' ? 'content' : 'session'}\u0000${value}`).digest('hex');
  return { key: `${caller.accountId}:${digest}`, source: source as StickySource };
}

/** The pin that records an attempt which answered. */
export function pinFor(attempt: PlannedAttempt): StickyPin {
  return {
    provider: attempt.endpoint.provider,
    credentialId: attempt.credential.kind === 'byok' ? attempt.credential.credentialId : null,
    model: attempt.model,
  };
}

/**
 * Sticky-session bookkeeping around a pin store. Store failures never fail a request: they are logged and the
 * request proceeds without a pin.
 */
export class StickySessions {
  readonly #store: SessionPinStore;
  readonly #ttlMs: number;
  readonly #logger: Logger;

  constructor(options: { store: SessionPinStore; ttlMs: number; logger: Logger }) {
    this.#store = options.store;
    this.#ttlMs = options.ttlMs;
    this.#logger = options.logger;
  }

  /** The pin for a key, or null. */
  async lookup(key: string): Promise<StickyPin | null> {
    try {
      return (await this.#store.get(key)) ?? null;
    } catch (error) {
      this.#logger.warn('sticky pin lookup failed; routing without a pin', { error });
      return null;
    }
  }

  /** Pins the session to the attempt that answered and restarts its idle time. */
  async succeeded(key: string, attempt: PlannedAttempt): Promise<void> {
    await this.#guard('refresh', () => this.#store.set(key, pinFor(attempt), this.#ttlMs));
  }

  /** Drops the pin when the failed attempt is the pinned provider, so the next request re-routes. */
  async failed(key: string, pin: StickyPin | null, attempt: PlannedAttempt): Promise<void> {
    if (pin === null || pin.provider !== attempt.endpoint.provider) return;
    await this.#guard('drop', () => this.#store.delete(key));
  }

  async #guard(action: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.#logger.warn(`sticky pin ${action} failed`, { error });
    }
  }
}
