/** The rules of a destination its schema cannot say: fields of its kind, required secrets, header names, moves. */
import { describe, expect, it } from 'vitest';
import { checkCredentialFollowsEndpoint, checkFieldsOfKind, checkHeaderNames, checkRequiredSecrets, checkUserInfo, DestinationRuleViolation } from '#src/observability/destinations/destination-rules.ts';

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

  const HERE = 'https://collector.example.com/v1/traces';
  const HEADERS_AGAIN = 'headers must be given again to move endpoint to another origin: the stored headers are not sent to a new origin';
  const KEY_AGAIN = 'secret_key must be given again to move endpoint to another origin: the stored secret_key is not sent to a new origin';
  it.each([
    ['otlp', { endpoint: 'https://elsewhere.example.net/v1/traces' }, true, HEADERS_AGAIN],
    ['otlp', { endpoint: 'https://collector.example.com:8443/v1/traces' }, true, HEADERS_AGAIN],
    ['otlp', { endpoint: 'http://collector.example.com/v1/traces' }, true, HEADERS_AGAIN],
    ['otlp', { endpoint: 'https://elsewhere.example.net/v1/traces', headers: {} }, true, undefined],
    ['otlp', { endpoint: 'https://elsewhere.example.net/v1/traces', headers: { authorization: 'new' } }, true, undefined],
    ['otlp', { endpoint: 'https://COLLECTOR.example.com:443/otlp/v1/traces' }, true, undefined],
    ['otlp', { endpoint: 'https://elsewhere.example.net/v1/traces' }, false, undefined],
    ['otlp', { protocol: 'http/json' }, true, undefined],
    ['langfuse', { endpoint: 'https://elsewhere.example.net' }, true, KEY_AGAIN],
    ['langfuse', { endpoint: 'https://elsewhere.example.net', secret_key: 'new' }, true, undefined],
    ['webhook', { endpoint: 'https://elsewhere.example.net/hook' }, true, undefined],
  ] as const)('moving a %s destination: %j (credential stored: %s)', (kind, change, stored, reason) => {
    expect(violation(() => checkCredentialFollowsEndpoint(kind, HERE, change, stored))).toBe(reason);
  });

  const CONFLICT = 'headers.Authorization conflicts with the user name and password in endpoint, which are sent as Authorization: Basic; give one or the other';
  const LANGFUSE = 'endpoint must not carry a user name or password for a langfuse destination: it authenticates with public_key and secret_key (sent as Basic authentication)';
  it.each([
    ['otlp', 'https://u:p@collector.example.com/v1/traces', { Authorization: 'Bearer t' }, CONFLICT],
    ['otlp', 'https://u:p@collector.example.com/v1/traces', { 'x-scope': 'a' }, undefined],
    ['otlp', 'https://collector.example.com/v1/traces', { Authorization: 'Bearer t' }, undefined],
    ['langfuse', 'https://u:p@langfuse.example.com', undefined, LANGFUSE],
    ['langfuse', 'https://langfuse.example.com', undefined, undefined],
    ['webhook', 'https://token@hooks.example.com/in', undefined, undefined],
  ] as const)('user-info on a %s endpoint %s with headers %j', (kind, endpoint, headers, reason) => {
    expect(violation(() => checkUserInfo(kind, endpoint, headers))).toBe(reason);
  });
});
