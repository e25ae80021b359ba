/**
 * Client mistakes a fuzzer of the spec finds, over HTTP against the real gateway: each answers a 4xx in the
 * operation's error shape with a message naming what was wrong, never a 500, and stores nothing. An `offset`
 * past what the database can skip is one of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const LISTS = ['/byok', '/keys', '/observability/destinations'];

describe('offset of the paged lists', () => {
  const cases = LISTS.flatMap((path) => ['2147483648', '9223372036854775807', '99999999999999999999'].map((offset) => ({ path, offset })));

  it.each(cases)('GET $path?offset=$offset: 400 naming offset', async ({ path, offset }) => {
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?offset=${offset}`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(checkResponse({ path, method: 'get', status: 400, contentType: 'application/json', body: response.body }).errors).toEqual([]);
    expect(response.body.error.details).toEqual([{ path: '/query/offset', message: 'must be <= 2147483647' }]);
  });

  it.each(LISTS)('GET %s?offset=2147483647, the largest: an empty page', async (path) => {
    const response = await callApi(gateway.baseUrl, 'GET', `${path}?offset=2147483647`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ data: [], offset: 2147483647 });
  });
});
