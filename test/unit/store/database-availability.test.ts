import { describe, expect, it } from 'vitest';
import { DatabaseAvailability, isDatabaseUnavailable } from '#src/store/database-availability.ts';

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), true],
    ['a terminated backend (57P01), wrapped by drizzle', new Error('Failed query', { cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) }), true],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' }), true],
    ['node-postgres losing its connection', new Error('Connection terminated unexpectedly'), true],
    ['a connect timeout', new Error('timeout exceeded when trying to connect'), true],
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' }), false],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' }), false],
    ['anything else', new Error('boom'), false],
  ])('%s: %s', (_name, error, unavailable) => {
    expect(isDatabaseUnavailable(error)).toBe(unavailable);
  });
});

describe('DatabaseAvailability', () => {
  it('is down for a moment after an unreachable database, and up again after a success', () => {
    let now = 0;
    const availability = new DatabaseAvailability({ retryMs: 1_000, now: () => now });
    expect(availability.failed(new Error('boom'))).toBe(false);
    expect(availability.isDown()).toBe(false);
    expect(availability.failed(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(availability.isDown()).toBe(true);
    now = 1_001;
    expect(availability.isDown()).toBe(false);
    availability.failed(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    availability.succeeded();
    expect(availability.isDown()).toBe(false);
  });
});
