import { describe, expect, it } from 'vitest';
import { deprioritizeOpen, verdictOf } from '#src/routing/circuit-breaker/circuit-rules.ts';
import type { AttemptStatus } from '#src/api-types.ts';

describe('verdictOf', () => {
  it.each<[AttemptStatus, 'shared' | 'byok', string]>([
    ['success', 'shared', 'healthy'],
    ['refusal', 'byok', 'healthy'],
    ['server_error', 'byok', 'failing'],
    ['overloaded', 'shared', 'failing'],
    ['timeout', 'shared', 'failing'],
    ['connection', 'byok', 'failing'],
    ['malformed_response', 'shared', 'failing'],
    ['rate_limited', 'shared', 'failing'],
    // A customer's own key being rate limited says nothing about the endpoint.
    ['rate_limited', 'byok', 'neutral'],
    ['authentication', 'shared', 'neutral'],
    ['invalid_request', 'shared', 'neutral'],
    ['not_found', 'shared', 'neutral'],
    ['request_too_large', 'shared', 'neutral'],
    ['unsupported', 'shared', 'neutral'],
    ['credential_unavailable', 'byok', 'neutral'],
  ])('%s on a %s key is %s', (status, credential, verdict) => {
    expect(verdictOf(status, credential)).toBe(verdict);
  });
});

describe('deprioritizeOpen', () => {
  const attempts = ['a|1', 'b|1', 'a|2', 'c|1'].map((name) => ({ name, endpoint: name.split('|')[0] as string }));
  const keyOf = (attempt: { endpoint: string }) => attempt.endpoint;

  it.each([
    ['nothing open', {}, ['a|1', 'b|1', 'a|2', 'c|1'], []],
    ['one endpoint open: all its keys go last, in their order', { a: 10 }, ['b|1', 'c|1', 'a|1', 'a|2'], [['a|1', 10]]],
    ['two open', { a: 10, b: 20 }, ['c|1', 'a|1', 'b|1', 'a|2'], [['a|1', 10], ['b|1', 20]]],
    ['everything open: the order stays', { a: 1, b: 1, c: 1 }, ['a|1', 'b|1', 'a|2', 'c|1'], [['a|1', 1], ['b|1', 1], ['c|1', 1]]],
  ] as const)('%s', (_name, open, order, named) => {
    const result = deprioritizeOpen(attempts, keyOf, (key) => (open as Record<string, number>)[key]);
    expect(result.attempts.map((attempt) => attempt.name)).toEqual(order);
    expect(result.open.map((entry) => [entry.attempt.name, entry.retryAt])).toEqual(named);
  });
});
