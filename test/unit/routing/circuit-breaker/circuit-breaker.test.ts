import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type CircuitShare } from '#src/routing/circuit-breaker/circuit-breaker.ts';
import { createLogger } from '#src/logger.ts';
import type { AttemptOutcome } from '#src/routing/attempt.ts';
import type { AttemptStatus } from '#src/api-types.ts';

function outcome(status: AttemptStatus, provider = 'alpha', credential: 'shared' | 'byok' = 'shared'): AttemptOutcome {
  return {
    attempt: { model: 'm', provider: { slug: provider }, credential: credential === 'shared' ? { kind: 'shared' } : { kind: 'byok', credentialId: 'c' } } as never,
    index: 0,
    status,
    durationMs: 1,
  };
}

function breaker(share?: CircuitShare) {
  let now = 1_000_000;
  const instance = new CircuitBreaker({ failures: 3, cooldownMs: 500, logger: createLogger({ level: 'error' }), now: () => now, ...(share ? { share } : {}) });
  return { instance, advance: (ms: number) => (now += ms), now: () => now };
}

describe('CircuitBreaker', () => {
  it('opens after consecutive failures only, for the cool-down, and reopens at the next failure after it', () => {
    const { instance, advance, now } = breaker();
    instance.record([outcome('server_error'), outcome('server_error')]);
    instance.record([outcome('success')]);
    instance.record([outcome('timeout'), outcome('overloaded')]);
    expect(instance.openUntil('m|alpha')).toBeUndefined();
    instance.record([outcome('connection')]);
    expect(instance.openUntil('m|alpha')).toBe(now() + 500);
    advance(501);
    expect(instance.openUntil('m|alpha')).toBeUndefined();
    // Half-open: one more failure is enough.
    instance.record([outcome('server_error')]);
    expect(instance.openUntil('m|alpha')).toBe(now() + 500);
    advance(501);
    instance.record([outcome('success')]);
    instance.record([outcome('server_error'), outcome('server_error')]);
    expect(instance.openUntil('m|alpha')).toBeUndefined();
  });

  it('ignores what says nothing about the endpoint, and counts per endpoint', () => {
    const { instance } = breaker();
    instance.record([outcome('rate_limited', 'alpha', 'byok'), outcome('invalid_request'), outcome('authentication'), outcome('unsupported')]);
    instance.record([outcome('server_error'), outcome('server_error'), outcome('server_error', 'beta')]);
    expect(instance.openUntil('m|alpha')).toBeUndefined();
    expect(instance.openUntil('m|beta')).toBeUndefined();
    instance.record([outcome('rate_limited')]);
    expect(instance.openUntil('m|alpha')).toBeDefined();
  });

  it('publishes what it opens and closes, and applies what other instances publish', () => {
    const published: [string, number][] = [];
    let listener: ((key: string, until: number) => void) | undefined;
    const share: CircuitShare = { publish: (key, until) => void published.push([key, until]), subscribe: (heard) => void (listener = heard), close: async () => {} };
    const { instance, now } = breaker(share);
    instance.record([outcome('server_error'), outcome('server_error'), outcome('server_error')]);
    expect(published).toEqual([['m|alpha', now() + 500]]);
    instance.record([outcome('success')]);
    expect(published.at(-1)).toEqual(['m|alpha', 0]);
    listener?.('m|beta', now() + 300);
    expect(instance.openUntil('m|beta')).toBe(now() + 300);
    listener?.('m|beta', 0);
    expect(instance.openUntil('m|beta')).toBeUndefined();
  });

  it('gives an instance that hears of an open circuit the same state machine as the one that opened it', () => {
    // Two instances on one share, as Redis links them: every publish reaches both, the publisher included.
    const listeners: ((key: string, until: number) => void)[] = [];
    const share = (): CircuitShare => ({
      publish: (key, until) => listeners.forEach((listener) => listener(key, until)),
      subscribe: (listener) => void listeners.push(listener),
      close: async () => {},
    });
    let now = 1_000_000;
    const make = () => new CircuitBreaker({ failures: 3, cooldownMs: 500, logger: createLogger({ level: 'error' }), now: () => now, share: share() });
    const [first, second] = [make(), make()];
    first.record([outcome('server_error'), outcome('server_error'), outcome('server_error')]);
    expect(second.openUntil('m|alpha')).toBe(now + 500);
    now += 501;
    // Half-open on both: the second instance's one failure reopens it, for both.
    second.record([outcome('server_error')]);
    expect(second.openUntil('m|alpha')).toBe(now + 500);
    expect(first.openUntil('m|alpha')).toBe(now + 500);
    now += 501;
    // Both ask after the cool-down (a plan did), so neither holds an open entry: the success still closes it for both.
    expect([first.openUntil('m|alpha'), second.openUntil('m|alpha')]).toEqual([undefined, undefined]);
    second.record([outcome('success')]);
    first.record([outcome('server_error')]);
    second.record([outcome('server_error')]);
    expect([first.openUntil('m|alpha'), second.openUntil('m|alpha')]).toEqual([undefined, undefined]);
  });

  it('reports no open circuit once every cool-down has passed, though no plan asked about it', () => {
    const { instance, advance } = breaker();
    instance.record([outcome('server_error'), outcome('server_error'), outcome('server_error')]);
    instance.record([outcome('server_error', 'beta'), outcome('server_error', 'beta'), outcome('server_error', 'beta')]);
    expect(instance.anyOpen()).toBe(true);
    advance(501);
    expect(instance.anyOpen()).toBe(false);
    expect(instance.openCount()).toBe(0);
  });

  it('never opens when turned off', () => {
    const instance = new CircuitBreaker({ failures: 0, cooldownMs: 500, logger: createLogger({ level: 'error' }) });
    instance.record(Array.from({ length: 20 }, () => outcome('server_error')));
    expect(instance.anyOpen()).toBe(false);
  });

  it('takes a read of every circuit both ways: closes what is gone, opens what is open, half-opens what is past its cool-down', () => {
    let sync: ((open: ReadonlyMap<string, number>) => void) | undefined;
    const share: CircuitShare = { publish: () => undefined, subscribe: (_heard, synced) => void (sync = synced), close: async () => {} };
    const { instance, now } = breaker(share);
    instance.record([outcome('server_error'), outcome('server_error'), outcome('server_error')]);
    expect(instance.openUntil('m|alpha')).toBe(now() + 500);

    // Alpha was closed elsewhere meanwhile, beta opened, gamma is past its cool-down (half-open).
    sync?.(new Map([['m|beta', now() + 300], ['m|gamma', now() - 10]]));
    expect(instance.openUntil('m|alpha')).toBeUndefined();
    expect(instance.openUntil('m|beta')).toBe(now() + 300);
    expect(instance.openUntil('m|gamma')).toBeUndefined();
    // Alpha's count starts again (three failures to open); gamma reopens at its first failure.
    instance.record([outcome('server_error'), outcome('server_error', 'gamma')]);
    expect(instance.openUntil('m|alpha')).toBeUndefined();
    expect(instance.openUntil('m|gamma')).toBe(now() + 500);
  });
});
