/** The split of a destination endpoint into its shown form and its sealed tail and user-info, and back. */
import { describe, expect, it } from 'vitest';
import { carriesRedactedValue, joinEndpoint, splitEndpoint } from '#src/observability/destinations/endpoint-query.ts';

describe('splitEndpoint', () => {
  it.each([
    ['https://h.example.com/v1/traces', 'https://h.example.com/v1/traces', null],
    ['https://h.example.com/x?', 'https://h.example.com/x?', null],
    ['https://h.example.com/x?api_key=s3cr3t', 'https://h.example.com/x?api_key=***', '?api_key=s3cr3t'],
    ['https://h.example.com/x?a=1&b=&c', 'https://h.example.com/x?a=***&b=&***', '?a=1&b=&c'],
    ['https://h.example.com/x?a=b=c', 'https://h.example.com/x?a=***', '?a=b=c'],
    ['https://h.example.com/x#token', 'https://h.example.com/x#***', '#token'],
    ['https://h.example.com/x?k=%2Fv#f', 'https://h.example.com/x?k=***#***', '?k=%2Fv#f'],
    ['https://h.example.com/x?k=***', 'https://h.example.com/x?k=***', null],
  ])('%s shows as %s', (endpoint, shown, tail) => {
    expect(splitEndpoint(endpoint)).toEqual({ shown, tail, userInfo: null });
    expect(joinEndpoint(shown, tail ?? undefined)).toBe(endpoint);
  });

  it.each([
    ['https://u:p%40ss@h.example.com/hook', 'https://***@h.example.com/hook', null, 'u:p%40ss'],
    ['https://token-only@h.example.com/', 'https://***@h.example.com/', null, 'token-only'],
    ['http://u:p@ss@h.example.com:8080/x?k=v#f', 'http://***@h.example.com:8080/x?k=***#***', '?k=v#f', 'u:p@ss'],
  ])('user-info: %s shows as %s', (endpoint, shown, tail, userInfo) => {
    expect(splitEndpoint(endpoint)).toEqual({ shown, tail, userInfo });
    expect(joinEndpoint(shown, tail ?? undefined, userInfo)).toBe(endpoint);
  });
});

describe('carriesRedactedValue', () => {
  it.each([
    ['https://h.example.com/x?k=***', true],
    ['https://h.example.com/x?***', true],
    ['https://h.example.com/x?k=1&j=***#f', true],
    ['https://h.example.com/x?k=a***', false],
    ['https://h.example.com/***', false],
    ['https://***@h.example.com/x', true],
    ['https://u:***@h.example.com/x', true],
    ['https://***:p@h.example.com/x', true],
    ['https://u:p***@h.example.com/x', false],
    ['https://h.example.com/x', false],
  ])('%s: %s', (endpoint, expected) => {
    expect(carriesRedactedValue(endpoint)).toBe(expected);
  });
});
