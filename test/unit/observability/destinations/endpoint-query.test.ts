/** The split of a destination endpoint into its shown form and its sealed tail, and back. */
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
    expect(splitEndpoint(endpoint)).toEqual({ shown, tail });
    expect(joinEndpoint(shown, tail ?? undefined)).toBe(endpoint);
  });
});

describe('carriesRedactedValue', () => {
  it.each([
    ['https://h.example.com/x?k=***', true],
    ['https://h.example.com/x?***', true],
    ['https://h.example.com/x?k=1&j=***#f', true],
    ['https://h.example.com/x?k=a***', false],
    ['https://h.example.com/***', false],
    ['https://h.example.com/x', false],
  ])('%s: %s', (endpoint, expected) => {
    expect(carriesRedactedValue(endpoint)).toBe(expected);
  });
});
