import { describe, expect, it } from 'vitest';
import { limitPeriod, periodWords, utcDay } from '#src/limits/limit-period.ts';

const at = (iso: string) => Date.parse(iso);

describe('limitPeriod', () => {
  it.each([
    // [reset, instant, id, start, end]
    ['daily', '2025-11-21T23:59:59.999Z', 'd2025-11-21', '2025-11-21T00:00:00.000Z', '2025-11-22T00:00:00.000Z'],
    ['daily', '2025-11-22T00:00:00.000Z', 'd2025-11-22', '2025-11-22T00:00:00.000Z', '2025-11-23T00:00:00.000Z'],
    // Weeks run Monday to Sunday: a Sunday belongs to the week that began six days before.
    ['weekly', '2025-11-23T18:00:00.000Z', 'w2025-11-17', '2025-11-17T00:00:00.000Z', '2025-11-24T00:00:00.000Z'],
    ['weekly', '2025-11-24T00:00:00.000Z', 'w2025-11-24', '2025-11-24T00:00:00.000Z', '2025-12-01T00:00:00.000Z'],
    ['weekly', '2025-12-31T12:00:00.000Z', 'w2025-12-29', '2025-12-29T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
    ['monthly', '2025-12-31T23:00:00.000Z', 'm2025-12', '2025-12-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['monthly', '2024-02-29T12:00:00.000Z', 'm2024-02', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
  ] as const)('%s at %s is %s', (reset, instant, id, start, end) => {
    const period = limitPeriod(reset, at(instant));
    expect(period).toEqual({ id, start: new Date(start), end: new Date(end) });
  });

  it('is the whole life of the key without a reset', () => {
    expect(limitPeriod(null, at('2025-11-21T10:00:00Z'))).toEqual({ id: 'all', start: null, end: null });
  });
});

describe('utcDay and periodWords', () => {
  it('name the UTC day and the period as a message says it', () => {
    expect(utcDay(at('2025-11-21T23:59:59Z'))).toBe('2025-11-21');
    expect([null, 'daily', 'weekly', 'monthly'].map((reset) => periodWords(reset as never))).toEqual(['in total', 'today', 'this week', 'this month']);
  });
});
