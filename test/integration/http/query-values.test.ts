/**
 * A query value is read as written. express-openapi-validator converts query values with JavaScript's
 * `Number()` rules whatever `coerceTypes` says, so `limit=0x10` listed 16 items, `limit=1e2` 100 and
 * `limit=%2010` (a leading space) 10, while `limit=abc` was a 400; and `limit[a]=1` (qs-style brackets) was
 * called a wrong type. Every integer, number or boolean query parameter of the spec is driven here, found by
 * walking the bundled spec, so a parameter added later is covered without a new row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSpec } from '#src/http/bundled-spec.ts';
import { queryParametersOf } from '#src/http/strict-query.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

type Operation = { parameters?: unknown };
const spec = readSpec() as { paths: Record<string, Record<string, Operation>> };
// Every GET operation without path parameters (the lists), with each of its typed query parameters.
const TYPED = Object.entries(spec.paths).flatMap(([path, item]) =>
  path.includes('{') || !item.get ? [] : queryParametersOf(item.get).flatMap((parameter) => (parameter.type ? [{ path, ...parameter, type: parameter.type }] : [])),
);
const PLAIN: Record<string, string> = { integer: '1', number: '1', boolean: 'true' };
const LOOSE: Record<string, string[]> = {
  integer: ['0x10', '1e1', '%2010', '10.0', '0b11', '0o7', 'Infinity', '1%20'],
  number: ['0x10', '%201', 'Infinity', '.5'],
  boolean: ['1', 'TRUE', 'yes'],
};

async function get(path: string, query: string): Promise<{ status: number; body: { error: { code: number; message: string; details?: unknown } } }> {
  const response = await fetch(`${gateway.baseUrl}${path}?${query}`, { headers: { authorization: `Bearer ${gateway.management_key}` } });
  return { status: response.status, body: (await response.json()) as { error: { code: number; message: string; details?: unknown } } };
}

describe('typed query parameters of the spec', () => {
  it('finds the integer parameters of every list (limit and the deprecated offset)', () => {
    expect(TYPED.map(({ path, name }) => `${path} ${name}`)).toEqual(
      expect.arrayContaining(['/byok limit', '/byok offset', '/keys limit', '/generations limit', '/models limit', '/observability/destinations limit']),
    );
  });

  it.each(TYPED)('$path $name ($type): a plainly written value is accepted', async ({ path, name, type }) => {
    expect((await get(path, `${name}=${PLAIN[type]}`)).status).toBe(200);
  });

  it.each(TYPED)('$path $name ($type): a value Number() would read is a 400 naming the parameter', async ({ path, name, type }) => {
    for (const value of LOOSE[type] ?? []) {
      const { status, body } = await get(path, `${name}=${value}`);
      expect({ value, status }).toEqual({ value, status: 400 });
      expect(body.error.code).toBe(400);
      expect(body.error.message).toMatch(new RegExp(`^Invalid request parameters: query parameter ${name}: must be (an integer written in decimal digits|a number written in decimal|true or false)`));
      expect(JSON.stringify(body.error.details)).toContain(`/query/${name}`);
    }
  });

  it.each(TYPED)('$path $name: bracket form (`$name[a]=1`, `$name[]=1`) is a 400 saying so', async ({ path, name }) => {
    for (const query of [`${name}[a]=1`, `${name}[]=1`, `${name}%5Ba%5D=1`]) {
      const { status, body } = await get(path, query);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(body.error.message).toBe(`Invalid request parameters: query parameter ${name}: is written in bracket form (\`${name}[…]\`), which this API does not read: give it as \`${name}=<value>\``);
    }
  });
});

describe('what the validator refuses itself keeps its message', () => {
  it.each([
    ['limit=abc', 'query parameter limit: must be integer'],
    ['limit=%2B5', 'query parameter limit: must be an integer written in decimal digits, such as 20 (no exponent, decimal point, hexadecimal, sign `+` or spaces)'],
    ['limit=+5', 'query parameter limit: holds a reserved character (such as `+`, `&` or `#`) unencoded: percent-encode it (`+` is `%2B`)'],
    ['limit=1&limit=2', 'query parameter limit: is given more than once (give it once)'],
    ['limit=0', 'query parameter limit: must be >= 1'],
    ['limit=007', null],
  ])('/byok?%s', async (query, expected) => {
    const { status, body } = await get('/byok', query);
    if (expected === null) expect(status).toBe(200);
    else expect(body.error.message).toBe(`Invalid request parameters: ${expected}`);
  });

  it('a string parameter in bracket form on /messages (Claude Code sends `?beta=true`) is named too', async () => {
    const response = await fetch(`${gateway.baseUrl}/messages?beta[x]=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'Invalid request parameters: query parameter beta: is written in bracket form (`beta[…]`), which this API does not read: give it as `beta=<value>`',
    );
  });
});
