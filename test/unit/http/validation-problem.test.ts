import { describe, expect, it } from 'vitest';
import { firstProblem, placeName } from '#src/http/validation-problem.ts';

describe('placeName', () => {
  it.each([
    ['/body', 'the body'],
    ['/body/max_tokens', 'max_tokens'],
    ['/body/plugins/0/id', 'plugins[0].id'],
    ['/query/limit', 'query parameter limit'],
    ['/params/hash', 'path parameter hash'],
    ['/headers/x-session-id', 'header x-session-id'],
  ])('%s is %s', (path, name) => {
    expect(placeName(path)).toBe(name);
  });
});

describe('firstProblem', () => {
  // Keywords the spec does not use today (dependentRequired, multipleOf, const outside a union) are covered here.
  it.each([
    ['required', [{ path: '/body/max_tokens', message: "must have required property 'max_tokens'" }], 'max_tokens: is required'],
    ['additionalProperties', [{ path: '/body/colour', message: 'must NOT have additional properties' }], 'colour: is not a known property here (remove it)'],
    ['dependentRequired', [{ path: '/body/b', message: 'must have property b when property a is present' }], 'b: is required when a is present'],
    ['multipleOf', [{ path: '/body/step', message: 'must be multiple of 0.5' }], 'step: must be multiple of 0.5'],
    ['const', [{ path: '/body/type', message: 'must be equal to constant' }], 'type: must be equal to constant'],
    ['nullable type', [{ path: '/body/name', message: 'must be string,null' }], 'name: must be string or null'],
    ['nullable enum', [{ path: '/body/speed', message: 'must be equal to one of the allowed values: fast, standard, ' }], 'speed: must be equal to one of the allowed values: fast, standard, null'],
    ['unknown query parameter', [{ path: '/query/colour', message: "Unknown query parameter 'colour'" }], 'query parameter colour: is not a parameter of this operation (remove it)'],
    ['query parameter without a name', [{ path: '/query/', message: "Unknown query parameter ''" }], 'the query string has a parameter without a name (`=` with nothing before it, as in `?=value`): name it or remove it'],
    [
      'two types at one path',
      [
        { path: '/body/content', message: 'must be string' },
        { path: '/body/content', message: 'must be array' },
        { path: '/body/other', message: 'must be integer' },
      ],
      'content: must be string or array',
    ],
  ])('%s', (_keyword, details, expected) => {
    expect(firstProblem(details)).toBe(expected);
  });

  it('is null without details', () => {
    expect(firstProblem([])).toBeNull();
  });

  it.each([
    ['an empty value', [{ path: '/query/limit', message: "Empty value found for query parameter 'limit'" }], { limit: '' }, 'query parameter limit: is empty: give it a value or leave it out'],
    [
      'a reserved character',
      [{ path: '/query/limit', message: "Parameter 'limit' must be url encoded. Its value may not contain reserved characters." }],
      { limit: ' 1' },
      'query parameter limit: holds a reserved character (such as `+`, `&` or `#`) unencoded: percent-encode it (`+` is `%2B`)',
    ],
    ['a parameter given twice', [{ path: '/query/limit', message: 'must be integer' }], { limit: ['1', '2'] }, 'query parameter limit: is given more than once (give it once)'],
    [
      'a + read as a space',
      [{ path: '/query/from', message: 'must match format "date-time"' }],
      { from: '2025-01-01T00:00:00 01:00' },
      'query parameter from: must match format "date-time" (a `+` in a query string reads as a space: write it `%2B`)',
    ],
    ['a value without a space', [{ path: '/query/from', message: 'must match format "date-time"' }], { from: 'yesterday' }, 'query parameter from: must match format "date-time"'],
    [
      'a path whose percent-encoding does not decode',
      [{ path: '/api/v1/byok/%E0%A4%A', message: "malformed uri'" }],
      {},
      'the path /api/v1/byok/%E0%A4%A is not valid percent-encoding: each `%` must begin a UTF-8 byte written `%XX` (`%25` is `%` itself)',
    ],
  ])('reads the query: %s', (_label, details, query, expected) => {
    expect(firstProblem(details, query)).toBe(expected);
  });
});
