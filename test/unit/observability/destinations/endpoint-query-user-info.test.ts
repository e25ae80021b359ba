import { describe, expect, it } from 'vitest';
import { userInfoSecrets } from '#src/observability/destinations/endpoint-query.ts';

describe('userInfoSecrets', () => {
  it.each([
    ['a user and a password: the password and the pair, not the user alone', 'https://gateway:pass-word-0042@mcp.example.com/mcp', ['pass-word-0042', 'gateway:pass-word-0042']],
    ['percent-encoded: as written and decoded', 'https://gateway:p%40ss%2Fword-0042@host.example/mcp', ['p%40ss%2Fword-0042', 'p@ss/word-0042', 'gateway:p%40ss%2Fword-0042', 'gateway:p@ss/word-0042']],
    [
      'left raw where the parser encodes: as written, as the parser writes it, and decoded',
      'http://us%65r:p@ss w;rd-1@host.example/x',
      ['p@ss w;rd-1', 'us%65r:p@ss w;rd-1', 'user:p@ss w;rd-1', 'p%40ss%20w%3Brd-1', 'us%65r:p%40ss%20w%3Brd-1'],
    ],
    ['a user name alone is the credential (a token given as the user)', 'https://ghp_token1234567890abcdef@host.example/mcp', ['ghp_token1234567890abcdef', 'ghp_token1234567890abcdef:']],
    ['a password alone', 'https://:secret-only-9@host.example/', ['secret-only-9', ':secret-only-9']],
    ['no user-info', 'https://mcp.example.com/mcp?api_key=query-key-0001', []],
    ['not a URL', 'not a url', []],
    ['no URL', undefined, []],
  ])('%s', (_name, url, expected) => {
    expect(userInfoSecrets(url)).toEqual(expected);
  });
});
