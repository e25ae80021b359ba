/**
 * The circuit breaker: counts each endpoint's consecutive failures and, past the threshold, opens its circuit
 * for a cool-down, during which every plan tries the endpoint last. After the cool-down the endpoint takes its
 * place again (half-open); one more failure reopens it at once, one success closes it. Counting up to the
 * threshold is per instance; an opened (or closed) circuit is shared with every instance through Redis when
 * there is one, and an instance that hears of it takes the whole state: it is half-open after the cool-down
 * as on the instance that opened it, and a close heard from another instance clears its count.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '#src/logger.ts';
import type { AttemptOutcome } from '#src/routing/attempt.ts';
import { endpointKey, verdictOf } from '#src/routing/circuit-breaker/circuit-rules.ts';

/** Where open circuits are shared: `publish` tells the other instances, `subscribe` hears them. */
export interface CircuitShare {
  /** `until` 0 closes the circuit. */
  publish(key: string, until: number): void;
  /**
   * `listener` hears each circuit opened or closed elsewhere; `sync`, when the share reads every circuit at once
   * (at start, after an outage), gets them all: a circuit open here but not there was closed meanwhile, and one
   * whose cool-down has passed is half-open.
   */
  subscribe(listener: (key: string, until: number) => void, sync?: (open: ReadonlyMap<string, number>) => void): void;
  close(): Promise<void>;
}

/** Options of the breaker. */
export interface CircuitBreakerOptions {
  /** Consecutive failures that open a circuit; 0 never opens one. */
  failures: number;
  cooldownMs: number;
  logger: Logger;
  share?: CircuitShare;
  registry?: Registry;
  now?: () => number;
}

/** The breaker of one gateway instance. */
export class CircuitBreaker {
  readonly #failures = new Map<string, number>();
  readonly #open = new Map<string, number>();
  // The earliest cool-down end in #open (or earlier): until then no entry can have expired.
  #nextExpiry = Number.POSITIVE_INFINITY;
  readonly #options: CircuitBreakerOptions;
  readonly #now: () => number;
  readonly #opened: Counter<'provider'> | undefined;

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    const registers = options.registry ? [options.registry] : [];
    this.#opened = options.registry
      ? new Counter({ name: 'switchboard_circuit_opened_total', help: 'Endpoint circuits opened by this instance after consecutive failures, by provider.', labelNames: ['provider'] as const, registers })
      : undefined;
    if (options.registry) {
      const breaker = this;
      new Gauge({
        name: 'switchboard_circuits_open',
        help: 'Endpoints currently moved to the back of every plan (their circuit is open).',
        registers,
        // Workers share opened circuits (Redis), so each reports the same ones: a sum would count them twice.
        aggregator: 'max',
        collect() {
          this.set(breaker.openCount());
        },
      });
    }
    // Logged at debug: what this instance heard of other instances' circuits, for operators and tests alike.
    options.share?.subscribe(
      (key, until) => {
        this.#apply(key, until);
        this.#options.logger.debug('circuit heard from another instance', { circuit: key, state: until > this.#now() ? 'open' : 'closed' });
      },
      (open) => {
        this.#sync(open);
        this.#options.logger.debug('circuits read from the share', { stored: open.size });
      },
    );
  }

  /** When the endpoint's cool-down ends, or undefined when its circuit is closed. */
  openUntil(key: string): number | undefined {
    if (this.#open.size === 0) return undefined;
    const until = this.#open.get(key);
    if (until === undefined) return undefined;
    if (until > this.#now()) return until;
    this.#open.delete(key);
    return undefined;
  }

  /** Whether any circuit is open (a plan need not be looked at otherwise). */
  anyOpen(): boolean {
    if (this.#open.size === 0) return false;
    if (this.#now() < this.#nextExpiry) return true;
    // A cool-down ended: its entry goes, or every later plan would be walked for circuits long closed.
    this.#prune();
    return this.#open.size > 0;
  }

  openCount(): number {
    const now = this.#now();
    let open = 0;
    for (const until of this.#open.values()) if (until > now) open += 1;
    return open;
  }

  /** Counts how a request's attempts ended. */
  record(outcomes: readonly AttemptOutcome[]): void {
    if (this.#options.failures === 0) return;
    for (const { attempt, status } of outcomes) {
      const verdict = verdictOf(status, attempt.credential.kind);
      if (verdict === 'neutral') continue;
      // The common case, a success with no endpoint failing or open: nothing to clear, so no key is built.
      if (verdict === 'healthy' && this.#failures.size === 0 && this.#open.size === 0) continue;
      const key = endpointKey(attempt.model, attempt.provider.slug);
      if (verdict === 'healthy') {
        // A circuit past its cool-down is no longer in #open but its count still says it tripped: the other
        // instances must hear that it closed, or their next failure would reopen it.
        const tripped = (this.#failures.get(key) ?? 0) >= this.#options.failures;
        this.#failures.delete(key);
        if (this.#open.delete(key) || tripped) this.#options.share?.publish(key, 0);
        continue;
      }
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      if (failures >= this.#options.failures && this.openUntil(key) === undefined) {
        const until = this.#now() + this.#options.cooldownMs;
        this.#setOpen(key, until);
        this.#opened?.inc({ provider: attempt.provider.slug });
        this.#options.logger.warn('circuit opened: endpoint moved to the back of every plan', {
          model: attempt.model,
          provider: attempt.provider.slug,
          consecutive_failures: failures,
          retry_at: new Date(until).toISOString(),
        });
        this.#options.share?.publish(key, until);
      }
    }
  }

  async close(): Promise<void> {
    await this.#options.share?.close();
  }

  #apply(key: string, until: number): void {
    if (until > this.#now()) {
      this.#setOpen(key, until);
      // Opened elsewhere after as many failures: after the cool-down one failure here reopens it too.
      if ((this.#failures.get(key) ?? 0) < this.#options.failures) this.#failures.set(key, this.#options.failures);
      return;
    }
    this.#open.delete(key);
    this.#failures.delete(key);
  }

  // Both ways: a close published while this instance was not listening would otherwise leave the endpoint at
  // the back of its plans for the rest of the cool-down.
  #sync(open: ReadonlyMap<string, number>): void {
    const now = this.#now();
    for (const [key, until] of this.#open) if (until > now && !open.has(key)) this.#apply(key, 0);
    for (const [key, until] of open) {
      if (until > now) this.#apply(key, until);
      // Half-open (not closed: a close deletes the key): the first failure here reopens it, as on its opener.
      else if ((this.#failures.get(key) ?? 0) < this.#options.failures) this.#failures.set(key, this.#options.failures);
    }
  }

  #setOpen(key: string, until: number): void {
    this.#open.set(key, until);
    if (until < this.#nextExpiry) this.#nextExpiry = until;
  }

  #prune(): void {
    const now = this.#now();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, until] of this.#open) {
      if (until <= now) this.#open.delete(key);
      else if (until < next) next = until;
    }
    this.#nextExpiry = next;
  }
}
