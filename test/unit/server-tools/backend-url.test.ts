import { describe, expect, it } from 'vitest';
import { isPathToken, pathSecrets, shownUrl } from '#src/server-tools/backend-url.ts';

const ZAPIER = 'NjI4ZmQ1YjctMDk3Yi00ZTEx';
const UUID = '3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f';

describe('isPathToken', () => {
  it.each([
    ['a base64 token', ZAPIER, true],
    ['a UUID', UUID, true],
    ['a hex key', '9f86d081884c7d659a2feaa0c55ad015', true],
    ['percent-encoded: judged decoded', 'ab%2Bcd%3D1234567890', true],
    ['sixteen characters, letters and digits', 'abcdefghijklmno1', true],
    ['fifteen characters', 'abcdefghijklmn1', false],
    ['letters alone, however long', 'model-context-protocol', false],
    ['digits alone (a date, an id)', '2025-03-26-1234567890', false],
    ['a path word', 'mcp', false],
    ['a version', 'v1', false],
    ['empty', '', false],
  ])('%s', (_name, segment, expected) => {
    expect(isPathToken(segment)).toBe(expected);
  });
});

describe('pathSecrets', () => {
  it.each([
    ['Zapier\'s form', `https://mcp.zapier.com/api/mcp/s/${ZAPIER}/mcp`, [ZAPIER]],
    ['a token before /sse', `https://host.example/${UUID}/sse`, [UUID]],
    ['as written and decoded', 'https://host.example/s/ab%2Bcd%3D1234567890/mcp', ['ab%2Bcd%3D1234567890', 'ab+cd=1234567890']],
    ['ordinary paths have none', 'https://mcp.example.com/api/v1/mcp?api_key=query-key-0001', []],
    ['the query is not the path', `https://mcp.example.com/mcp?token=${ZAPIER}`, []],
    ['no URL', undefined, []],
  ])('%s', (_name, url, expected) => {
    expect(pathSecrets(url)).toEqual(expected);
  });
});

describe('shownUrl', () => {
  it.each([
    ['a token segment', `https://mcp.zapier.com/api/mcp/s/${ZAPIER}/mcp`, 'https://mcp.zapier.com/api/mcp/s/***/mcp'],
    ['query values, as destinations\' endpoints', `http://127.0.0.1:8080/${UUID}/sse?api_key=k&flag`, 'http://127.0.0.1:8080/***/sse?api_key=***&***'],
    ['a fragment', 'https://host.example/mcp#secret', 'https://host.example/mcp#***'],
    ['a user name and password', 'https://user:pass@host.example/mcp', 'https://***@host.example/mcp'],
    ['nothing secret: unchanged', 'https://mcp.example.com/api/v1/mcp', 'https://mcp.example.com/api/v1/mcp'],
  ])('%s', (_name, url, expected) => {
    expect(shownUrl(url)).toBe(expected);
  });
});
