import { describe, expect, it } from 'vitest';
import { anthropicErrorType, kindForErrorType, kindForStatus, statusForFailures, statusForUpstreamKind, type UpstreamFailureKind } from '#src/error-vocabulary.ts';

describe('anthropicErrorType', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [405, 'invalid_request_error'],
    [413, 'request_too_large'],
    [415, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
    [418, 'api_error'],
  ])('%i -> %s', (status, type) => {
    expect(anthropicErrorType(status)).toBe(type);
  });
});

describe('kindForErrorType', () => {
  it.each([
    ['invalid_request_error', 'invalid_request'],
    ['authentication_error', 'authentication'],
    ['permission_error', 'authentication'],
    ['not_found_error', 'not_found'],
    ['request_too_large', 'request_too_large'],
    ['rate_limit_error', 'rate_limited'],
    ['timeout_error', 'timeout'],
    ['api_error', 'server_error'],
    ['overloaded_error', 'overloaded'],
    // An exhausted account: the next key or provider may answer.
    ['billing_error', 'authentication'],
    ['some_future_error', 'server_error'],
    [undefined, 'server_error'],
  ])('%s -> %s', (type, kind) => {
    expect(kindForErrorType(type)).toBe(kind);
  });

  it.each<UpstreamFailureKind>(['invalid_request', 'request_too_large', 'rate_limited', 'overloaded', 'server_error'])(
    'reads back the type of the status a %s failure answers with as the same kind',
    (kind) => {
      expect(kindForErrorType(anthropicErrorType(statusForUpstreamKind(kind)))).toBe(kind);
    },
  );
});

describe('kindForStatus and statusForUpstreamKind', () => {
  it.each([
    [429, 429],
    [529, 529],
    [503, 529],
    [504, 504],
    [408, 504],
    [400, 400],
    [413, 413],
    [401, 502],
    [404, 502],
    [500, 502],
  ])('an upstream %i is answered with %i', (upstream, answered) => {
    expect(statusForUpstreamKind(kindForStatus(upstream))).toBe(answered);
  });
});

describe('statusForFailures', () => {
  it.each<[string, number[], number]>([
    ['nothing failed (cannot happen): a bad gateway', [], 502],
    ['all rate limited', [429, 429], 429],
    ['rate limits and overloads', [429, 529], 503],
    ['all overloaded, as Anthropic answers', [529, 529], 529],
    ['overloads and timeouts', [529, 504], 503],
    ['all timed out, as Anthropic answers', [504, 504], 504],
    ['all over the vendors\' size limits', [413, 413], 413],
    ['over one size limit, overloaded on the other', [413, 529], 502],
    ['one bad gateway among them', [429, 502], 502],
    ['all bad gateways', [502, 502], 502],
  ])('%s -> %i', (_name, statuses, status) => {
    expect(statusForFailures(statuses)).toBe(status);
  });
});
