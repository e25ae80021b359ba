/** The rules of a destination its schema cannot say: fields of its kind, required secrets, header names. */
import { describe, expect, it } from 'vitest';
import { checkFieldsOfKind, checkHeaderNames, checkRequiredSecrets, DestinationRuleViolation } from '#src/observability/destinations/destination-rules.ts';

const violation = (rule: () => void) => {
  try {
    rule();
    return undefined;
  } catch (error) {
    if (error instanceof DestinationRuleViolation) return error.reason;
    throw error;
  }
};

describe('destination rules', () => {
  it.each([
    ['otlp', { protocol: 'http/json', headers: {} }, undefined],
    ['otlp', { secret_key: 'x' }, 'secret_key applies to langfuse destinations, not otlp'],
    ['langfuse', { public_key: 'p', secret_key: 's' }, undefined],
    ['langfuse', { headers: {} }, 'headers applies to otlp destinations, not langfuse'],
    ['webhook', { signing_secret: 's' }, undefined],
    ['webhook', { public_key: 'p' }, 'public_key applies to langfuse destinations, not webhook'],
  ] as const)('fields of kind %s: %j', (kind, given, reason) => {
    expect(violation(() => checkFieldsOfKind(kind, given))).toBe(reason);
  });

  it.each([
    ['otlp', {}, undefined],
    ['langfuse', { secret_key: 's' }, 'public_key is required for a langfuse destination'],
    ['langfuse', { public_key: 'p' }, 'secret_key is required for a langfuse destination'],
    ['webhook', {}, 'signing_secret is required for a webhook destination'],
  ] as const)('required secrets of %s: %j', (kind, given, reason) => {
    expect(violation(() => checkRequiredSecrets(kind, given))).toBe(reason);
  });

  it('refuses two spellings of one header name', () => {
    expect(violation(() => checkHeaderNames({ Authorization: 'a', authorization: 'b' }))).toBe('headers names authorization twice');
    expect(violation(() => checkHeaderNames({ Authorization: 'a', 'X-Tenant': 'b' }))).toBeUndefined();
    expect(violation(() => checkHeaderNames(undefined))).toBeUndefined();
    expect(violation(() => checkHeaderNames({ 'Content-Length': '5' }))).toBe('headers cannot set Content-Length: each export sets its own');
    expect(violation(() => checkHeaderNames({ 'x-content-length': '5' }))).toBeUndefined();
  });
});
