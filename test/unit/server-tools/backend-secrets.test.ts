import { describe, expect, it } from 'vitest';
import { SecretValue } from '#src/catalog/secret-value.ts';
import { backendScrubber, backendSecrets } from '#src/server-tools/backend-secrets.ts';

const secret = (value: string) => new SecretValue(value);
const BASIC = Buffer.from('gateway:pass-word-0042').toString('base64');

describe('backendSecrets', () => {
  it.each([
    ['a bearer header: the value and the token', { Authorization: secret('Bearer tok-123456789') }, null, ['Bearer tok-123456789', 'tok-123456789']],
    ['a Basic header: the value, the pair and the password', { Authorization: secret(`Basic ${BASIC}`) }, null, [`Basic ${BASIC}`, BASIC, 'gateway:pass-word-0042', 'pass-word-0042']],
    ['a Basic header of a user name alone: the user name is the credential', { Authorization: secret(`Basic ${Buffer.from('ghp_usertoken1234:').toString('base64')}`) }, null, [`Basic ${Buffer.from('ghp_usertoken1234:').toString('base64')}`, Buffer.from('ghp_usertoken1234:').toString('base64'), 'ghp_usertoken1234:', 'ghp_usertoken1234']],
    ['a plain token header', { 'X-Api-Key': secret('key-abcdef') }, null, ['key-abcdef']],
    ['short values (flags, versions) are not secrets', { 'X-Debug': secret('1'), 'X-Version': secret('2024') }, null, []],
    ['an API key', {}, secret('brave-key-0001'), ['brave-key-0001']],
  ])('%s', (_name, headers, apiKey, expected) => {
    expect(backendSecrets({ headers, apiKey })).toEqual(expected);
  });

  it.each([
    ['a key in the query', 'https://mcp.example.com/mcp?api_key=query-key-0001&x=1', ['query-key-0001']],
    ['percent-encoded: the value as sent is decoded', 'https://mcp.example.com/mcp?token=a%2Bb-123456', ['a+b-123456']],
    ['no query', 'https://mcp.example.com/mcp', []],
  ])('the values of the URL\'s query: %s', (_name, url, expected) => {
    expect(backendSecrets({ headers: {}, url })).toEqual(expected);
  });

  it.each([
    ['Zapier\'s token in the path', 'https://mcp.zapier.com/api/mcp/s/NjI4ZmQ1YjctMDk3Yi00ZTEx/mcp', ['NjI4ZmQ1YjctMDk3Yi00ZTEx']],
    ['path and query together', 'https://host.example/3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f/sse?key=query-key-0001', ['query-key-0001', '3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f']],
    ['path words are not secrets', 'https://mcp.example.com/api/v1/mcp', []],
  ])('the token segments of the URL\'s path: %s', (_name, url, expected) => {
    expect(backendSecrets({ headers: {}, url })).toEqual(expected);
  });

  // The Basic token the user-info is sent as (src/http/url-user-info.ts), with and without its padding.
  const token = (pair: string) => [Buffer.from(pair).toString('base64'), Buffer.from(pair).toString('base64').replace(/=+$/, '')];
  it.each([
    ['a password', 'https://gateway:pass-word-0042@mcp.example.com/mcp', ['pass-word-0042', 'gateway:pass-word-0042', ...token('gateway:pass-word-0042')]],
    ['percent-encoded: as written and decoded', 'https://gateway:p%40ss-0042@mcp.example.com/mcp', ['p%40ss-0042', 'p@ss-0042', 'gateway:p%40ss-0042', 'gateway:p@ss-0042', ...token('gateway:p@ss-0042')]],
    ['a short password: the pair and the token are long enough to cut', 'https://gateway:pw12@mcp.example.com/mcp', ['gateway:pw12', ...new Set(token('gateway:pw12'))]],
    ['with a token in the query', 'https://gateway:pass-word-0042@mcp.example.com/mcp?key=query-key-0001', ['query-key-0001', 'pass-word-0042', 'gateway:pass-word-0042', ...token('gateway:pass-word-0042')]],
  ])('the password of the URL\'s user-info: %s', (_name, url, expected) => {
    expect(backendSecrets({ headers: {}, url })).toEqual(expected);
  });
});

describe('backendScrubber', () => {
  const scrub = backendScrubber(['tok-123456789']);

  it('removes the secret from every string of a value, its keys too, keeping its shape and other values', () => {
    const value = { content: [{ type: 'text', text: 'token tok-123456789' }], count: 2, ok: true, none: null, nested: { 'tok-123456789': ['x tok-123456789'] } };
    expect(scrub(value)).toEqual({ content: [{ type: 'text', text: 'token [REDACTED]' }], count: 2, ok: true, none: null, nested: { '[REDACTED]': ['x [REDACTED]'] } });
  });

  it('removes it encoded', () => {
    expect(scrub(`b64 ${Buffer.from('tok-123456789').toString('base64')}`)).not.toContain(Buffer.from('tok-123456789').toString('base64').slice(0, 12));
  });

  it('is the identity without secrets', () => {
    const value = { text: 'anything' };
    expect(backendScrubber([])(value)).toBe(value);
  });
});
