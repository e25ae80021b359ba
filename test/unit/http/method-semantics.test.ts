import { describe, expect, it } from 'vitest';
import { allowedMethods, readPathTable, withImpliedMethods } from '#src/http/method-semantics.ts';
import { BUNDLED_SPEC_PATH } from '#src/http/bundled-spec.ts';

describe('allowedMethods', () => {
  it.each([
    [['post'], ['POST', 'OPTIONS']],
    [['get'], ['GET', 'HEAD', 'OPTIONS']],
    [['delete', 'patch', 'get'], ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS']],
    [['POST', 'GET'], ['GET', 'HEAD', 'POST', 'OPTIONS']],
  ])('%j allows %j', (spec, allowed) => {
    expect(allowedMethods(spec)).toEqual(allowed);
  });
});

describe('withImpliedMethods', () => {
  it.each([
    ['POST, GET', 'GET, HEAD, POST, OPTIONS'],
    ['DELETE, PATCH', 'PATCH, DELETE, OPTIONS'],
    ['', ''],
  ])('%j becomes %j', (allow, expected) => {
    expect(withImpliedMethods(allow)).toBe(expected);
  });
});

describe('readPathTable', () => {
  const table = readPathTable(BUNDLED_SPEC_PATH, '/api/v1');
  const find = (path: string) => table.find((entry) => entry.pattern.test(path));

  it.each([
    ['/api/v1/byok/7d2c', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
    ['/api/v1/messages', 'POST, OPTIONS'],
    ['/api/v1/messages/count_tokens', 'POST, OPTIONS'],
  ])('matches %s as a spec path (Allow %s)', (path, allow) => {
    expect(find(path)?.allow).toBe(allow);
  });

  // Paths match exactly (src/http/exact-paths.ts answers a near miss): no other case, no trailing slash.
  it.each(['/api/v1/byok/a/b', '/api/v1/messagesx', '/api/v2/messages', '/api/v1', '/api/v1/byok/7d2c/', '/api/v1/Messages'])('does not match %s', (path) => {
    expect(find(path)).toBeUndefined();
  });
});
