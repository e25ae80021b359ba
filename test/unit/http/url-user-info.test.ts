import { describe, expect, it } from 'vitest';
import { basicToken, replaceUserInfo, writtenUserInfo, userInfoAsBasic, userInfoConflict, userInfoSecrets, userInfoShown, withoutUserInfo } from '#src/http/url-user-info.ts';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const tokenForms = (pair: string) => [base64(pair), base64(pair).replace(/=+$/, '')];

describe('userInfoSecrets', () => {
  it.each([
    ['a user and a password: the password, the pair and the Basic token, not the user alone', 'https://gateway:pass-word-0042@mcp.example.com/mcp', ['pass-word-0042', 'gateway:pass-word-0042', ...tokenForms('gateway:pass-word-0042')]],
    [
      'percent-encoded: as written and decoded; the token of the decoded pair',
      'https://gateway:p%40ss%2Fword-0042@host.example/mcp',
      ['p%40ss%2Fword-0042', 'p@ss/word-0042', 'gateway:p%40ss%2Fword-0042', 'gateway:p@ss/word-0042', ...tokenForms('gateway:p@ss/word-0042')],
    ],
    [
      'left raw where the parser encodes: as written, as the parser writes it, and decoded',
      'http://us%65r:p@ss w;rd-1@host.example/x',
      ['p@ss w;rd-1', 'us%65r:p@ss w;rd-1', 'user:p@ss w;rd-1', 'p%40ss%20w%3Brd-1', 'us%65r:p%40ss%20w%3Brd-1', ...tokenForms('user:p@ss w;rd-1')],
    ],
    ['a user name alone is the credential (a token given as the user)', 'https://ghp_token1234567890abcdef@host.example/mcp', ['ghp_token1234567890abcdef', 'ghp_token1234567890abcdef:', ...tokenForms('ghp_token1234567890abcdef:')]],
    ['a password alone', 'https://:secret-only-9@host.example/', ['secret-only-9', ':secret-only-9', ...tokenForms(':secret-only-9')]],
    ['no user-info', 'https://mcp.example.com/mcp?api_key=query-key-0001', []],
    ['not a URL', 'not a url', []],
    ['no URL', undefined, []],
  ])('%s', (_name, url, expected) => {
    expect(userInfoSecrets(url)).toEqual(expected);
  });
});

describe('the user-info as Basic authentication', () => {
  it.each([
    ['user and password, percent-decoded', 'http://u:p%40ss@127.0.0.1:8080/mcp', 'u:p@ss', 'http://127.0.0.1:8080/mcp'],
    ['a raw @ in the password (the last @ ends the user-info)', 'https://u:p@ss@host.example/x?q=1', 'u:p@ss', 'https://host.example/x?q=1'],
    ['a user name alone: user and an empty password, as curl sends it', 'https://tok-123@host.example/', 'tok-123:', 'https://host.example/'],
    ['a malformed escape is taken as written', 'https://u:100%zz@host.example/', 'u:100%zz', 'https://host.example/'],
    ['the query stays exactly as written', 'https://u:pw@host.example/a?b=%7e&c', 'u:pw', 'https://host.example/a?b=%7e&c'],
  ])('%s', (_name, url, pair, called) => {
    expect(basicToken(url)).toBe(base64(pair));
    expect(withoutUserInfo(url)).toBe(called);
    expect(userInfoAsBasic(url, { 'x-other': '1' })).toEqual({ url: called, headers: { 'x-other': '1', authorization: `Basic ${base64(pair)}` } });
  });

  it('a URL without user-info is called as given, its headers unchanged', () => {
    expect(basicToken('https://host.example/x')).toBeNull();
    expect(userInfoAsBasic('https://host.example/x', { Authorization: 'Bearer t' })).toEqual({ url: 'https://host.example/x', headers: { Authorization: 'Bearer t' } });
  });

  it('an authorization header in any case beside user-info is the conflict; without user-info there is none', () => {
    expect(userInfoConflict('https://u:p@host.example/', ['X-Key', 'AUTHORIZATION'])).toBe('AUTHORIZATION');
    expect(userInfoConflict('https://u:p@host.example/', ['X-Key'])).toBeNull();
    expect(userInfoConflict('https://host.example/', ['Authorization'])).toBeNull();
  });
});

describe('userInfoShown', () => {
  it.each([
    ['ftp://u:s3cret@host/x', 'ftp://***@host/x'],
    ['http://u:p@ss@[::1]:8080/x?k=v', 'http://***@[::1]:8080/x?k=v'],
    ['http://u:p%40ss@[::1/x', 'http://***@[::1/x'],
    ['https://token@host', 'https://***@host'],
    ['https://host/a@b', 'https://host/a@b'],
    ['https://host/x', 'https://host/x'],
  ])('%s as %s', (url, shown) => {
    expect(userInfoShown(url)).toBe(shown);
  });
});

describe('an authority ended by a backslash, as the URL parser ends it', () => {
  const url = 'http://u:p@a.example\\x@b.example/in';
  it('keeps the host the parser reads, the user-info before it', () => {
    expect(new URL(url).host).toBe('a.example');
    expect(withoutUserInfo(url)).toBe('http://a.example\\x@b.example/in');
    expect(userInfoAsBasic(url, {}).headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(userInfoShown(url)).toBe('http://***@a.example\\x@b.example/in');
  });
});

describe('the slashes and backslashes the URL parser takes after the scheme', () => {
  it.each(['http:///u:p%40ss@h.example/x', 'http://\\u:p%40ss@h.example/x', 'http://\\/\\u:p%40ss@h.example/x', ' http://u:p%40ss@h.example/x', 'ht\ttp://u:p%40ss@h.example/x'])('%j: user-info found, cut and shown as ***', (url) => {
    expect(new URL(url).host).toBe('h.example');
    expect(writtenUserInfo(url)).toBe('u:p%40ss');
    expect(new URL(withoutUserInfo(url)).href).toBe('http://h.example/x');
    expect(withoutUserInfo(url)).not.toContain('p%40ss');
    expect(userInfoSecrets(url)).toContain('p@ss');
    expect(new URL(replaceUserInfo(url, '***')).username).toBe('***');
  });
});
