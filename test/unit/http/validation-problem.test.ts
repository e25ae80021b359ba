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
});
