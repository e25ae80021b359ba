import { describe, expect, it } from 'vitest';
import { bracketForm, looseValue, queryParametersOf, type QueryParameter } from '#src/http/strict-query.ts';

const PARAMETERS: QueryParameter[] = [
  { name: 'limit', type: 'integer' },
  { name: 'ratio', type: 'number' },
  { name: 'deep', type: 'boolean' },
  { name: 'cursor', type: undefined },
];

describe('looseValue', () => {
  it.each([
    ['limit', '20', undefined],
    ['limit', '-3', undefined],
    ['limit', '007', undefined],
    ['limit', '99999999999999999999', undefined],
    ['limit', '0x10', 'integer'],
    ['limit', '1e2', 'integer'],
    ['limit', '10.0', 'integer'],
    ['limit', ' 10', 'integer'],
    ['limit', '10 ', 'integer'],
    ['limit', '0b11', 'integer'],
    ['limit', 'Infinity', 'integer'],
    ['limit', '+5', 'integer'],
    ['ratio', '0.5', undefined],
    ['ratio', '2e-3', undefined],
    ['ratio', '-1.25E+2', undefined],
    ['ratio', '.5', 'number'],
    ['ratio', '5.', 'number'],
    ['ratio', '0x1p3', 'number'],
    ['ratio', 'NaN', 'number'],
    ['deep', 'true', undefined],
    ['deep', 'false', undefined],
    ['deep', '1', 'boolean'],
    ['deep', 'True', 'boolean'],
    ['cursor', '0x10', undefined],
  ] as const)('%s=%j: %s', (name, value, refused) => {
    const problem = looseValue({ [name]: value }, PARAMETERS);
    if (refused === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatchObject({ path: `/query/${name}`, message: expect.stringContaining(refused === 'boolean' ? 'true or false' : refused) });
  });

  it('leaves a repeated name (a list), an empty value and an undeclared name to the validator', () => {
    expect(looseValue({ limit: ['1', '0x2'] }, PARAMETERS)).toBeUndefined();
    expect(looseValue({ limit: '' }, PARAMETERS)).toBeUndefined();
    expect(looseValue({ other: '0x10' }, PARAMETERS)).toBeUndefined();
  });
});

describe('bracketForm', () => {
  it.each([
    [{ 'limit[a]': '1' }, 'limit'],
    [{ 'limit[]': '1' }, 'limit'],
    [{ 'cursor[x][y]': 'a' }, 'cursor'],
    [{ limit: '1', 'deep[0]': 'true' }, 'deep'],
    [{ limit: '1' }, undefined],
    [{ '[a]': '1' }, undefined],
    [{ 'other[a]': '1' }, undefined],
  ])('%j: %s', (query, name) => {
    const problem = bracketForm(query, PARAMETERS);
    if (name === undefined) expect(problem).toBeUndefined();
    else expect(problem).toEqual({ path: `/query/${name}`, message: `is written in bracket form (\`${name}[…]\`), which this API does not read: give it as \`${name}=<value>\`` });
  });
});

describe('queryParametersOf', () => {
  it('resolves the bundle\'s parameter references and reads each query parameter\'s scalar type', () => {
    const parameters = queryParametersOf({
      parameters: [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/ListCursor' }, { $ref: '#/components/parameters/AnthropicVersionHeader' }],
    });
    expect(parameters).toEqual([
      { name: 'limit', type: 'integer' },
      { name: 'cursor', type: undefined },
    ]);
  });

  it('reads a nullable type and an inline parameter, and an operation without parameters', () => {
    expect(queryParametersOf({ parameters: [{ name: 'n', in: 'query', schema: { type: ['number', 'null'] } }] })).toEqual([{ name: 'n', type: 'number' }]);
    expect(queryParametersOf({})).toEqual([]);
  });
});
