/**
 * `GET /generations` over HTTP: every filter, cursor pagination in a stable order with no record skipped or
 * repeated, totals over the whole filter, bad cursors and ranges as 400s, and tenant isolation: another
 * account's management key sees a 404 for a record and nothing in the list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { costOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
const ids: string[] = [];
let startedAt: string;

async function list(query: string, key = setup.gateway.management_key) {
  const response = await callApi(setup.gateway.baseUrl, 'GET', `/generations${query}`, { key });
  return response;
}

beforeAll(async () => {
  setup = await startRecordsGateway();
  startedAt = new Date(Date.now() - 1000).toISOString();
  // Six requests: users u1/u2, sessions s1/s2, two on test/other (Beta), one failure.
  const plan: [string, Record<string, unknown>, 'ok' | 'fail'][] = [
    ['test/primary', { user: 'u1', session_id: 's1' }, 'ok'],
    ['test/primary', { user: 'u1', session_id: 's1' }, 'ok'],
    ['test/primary', { user: 'u2', session_id: 's2' }, 'ok'],
    ['test/other', { user: 'u2', session_id: 's2' }, 'ok'],
    ['test/other', { user: 'u1' }, 'ok'],
    ['test/primary', { user: 'u2' }, 'fail'],
  ];
  for (const [model, extra, result] of plan) {
    if (model === 'test/primary') {
      if (result === 'ok') setup.alpha.enqueue(reply.fixture('anthropic-text'));
      else setup.alpha.enqueue(reply.error(400, { message: 'prompt is too long' }));
    } else {
      setup.beta.enqueue(reply.fixture('anthropic-text'));
    }
    const call = await postMessage(setup.gateway, messageBody(model, { ...ALPHA_FIRST, ...extra }));
    ids.push(call.headers.get('x-generation-id') ?? '');
  }
  await setup.gateway.server.flushRecords();
});
afterAll(async () => {
  await setup?.close();
});

describe('GET /generations', () => {
  it('lists newest first with totals over the filter', async () => {
    const response = await list(`?from=${encodeURIComponent(startedAt)}`);
    expect(response.status).toBe(200);
    expect(response.body.data.map((record: { id: string }) => record.id)).toEqual([...ids].reverse());
    expect(response.body.totals).toEqual({
      requests: 6,
      input_tokens: 60,
      output_tokens: 5 * 29,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 0,
      cost: expect.closeTo(5 * costOf(12, 29), 12),
    });
    expect(response.body.next_cursor).toBeNull();
  });

  it.each([
    ['model=test/other', [3, 4]],
    ['provider=beta', [3, 4]],
    ['provider=alpha', [0, 1, 2]],
    ['user=u1', [0, 1, 4]],
    ['session_id=s2', [2, 3]],
    ['status=error', [5]],
    ['status=success&user=u2', [2, 3]],
  ])('filters by %s', async (query, expected) => {
    const response = await list(`?${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.map((record: { id: string }) => record.id).sort()).toEqual(expected.map((index) => ids[index]).sort());
    expect(response.body.totals.requests).toBe(expected.length);
  });

  it('filters by key hash and time range', async () => {
    expect((await list(`?key_hash=${setup.gateway.api_key_hash}`)).body.totals.requests).toBe(6);
    expect((await list(`?key_hash=${'0'.repeat(64)}`)).body.totals.requests).toBe(0);
    expect((await list(`?to=${encodeURIComponent(startedAt)}`)).body.data).toEqual([]);
    expect((await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.totals.requests).toBe(0);
  });

  it('pages with an opaque cursor in a stable order, totals on every page', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}&provider=alpha`);
      expect(response.status).toBe(200);
      expect(response.body.totals.requests).toBe(3);
      seen.push(...response.body.data.map((record: { id: string }) => record.id));
      cursor = response.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(1);

    const small: string[] = [];
    cursor = null;
    do {
      const response = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      small.push(...response.body.data.map((record: { id: string }) => record.id));
      cursor = response.body.next_cursor;
    } while (cursor);
    expect(small).toEqual([...ids].reverse());
  });

  it('answers 400 for a cursor it did not make, a reversed range, a bad status or limit', async () => {
    for (const query of ['?cursor=not-a-cursor', `?from=${encodeURIComponent(new Date().toISOString())}&to=${encodeURIComponent(startedAt)}`, '?status=done', '?limit=0', '?limit=101', '?key_hash=abc']) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe(400);
    }
  });

  it('answers 400 naming cursor to another account’s cursor and to an altered one', async () => {
    const refused = {
      error: {
        code: 400,
        message: 'Invalid request parameters: cursor is not a next_cursor this list returned to this account',
        details: [{ path: '/query/cursor', message: 'must be the next_cursor of a page of this list, for this account' }],
      },
    };
    const cursor = (await list('?limit=2')).body.next_cursor as string;
    expect((await list(`?limit=2&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    const other = await initAccount(setup.gateway.server.database, { name: 'cursor replayer' });
    const replayed = await list(`?cursor=${encodeURIComponent(cursor)}`, other.management_key);
    expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 400, body: refused });
    // The next record's id in place of the page's last one, the digest kept: a position moved by hand.
    const [payload, digest] = cursor.split('.') as [string, string];
    const moved = Buffer.from(JSON.stringify({ l: 'generations', i: ids[0] })).toString('base64url');
    expect(moved).not.toBe(payload);
    const altered = await list(`?cursor=${encodeURIComponent(`${moved}.${digest}`)}`);
    expect({ status: altered.status, body: altered.body }).toEqual({ status: 400, body: refused });
    const unsigned = await list(`?cursor=${encodeURIComponent(payload)}`);
    expect({ status: unsigned.status, body: unsigned.body }).toEqual({ status: 400, body: refused });
  });

  it('needs a management key', async () => {
    expect((await list('', setup.gateway.api_key)).status).toBe(403);
    expect((await callApi(setup.gateway.baseUrl, 'GET', `/generations/${ids[0]}`, { key: setup.gateway.api_key })).status).toBe(403);
    expect((await callApi(setup.gateway.baseUrl, 'GET', '/generations', {})).status).toBe(401);
  });

  it('another account sees a 404 for the record and nothing in its list', async () => {
    const other = await initAccount(setup.gateway.server.database, { name: 'other tenant' });
    const single = await callApi(setup.gateway.baseUrl, 'GET', `/generations/${ids[0]}`, { key: other.management_key });
    expect(single.status).toBe(404);
    expect(single.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    const listed = await list('', other.management_key);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    expect(listed.body.totals.requests).toBe(0);
    expect((await list(`?key_hash=${setup.gateway.api_key_hash}`, other.management_key)).body.totals.requests).toBe(0);
  });

  it('a well-formed id that does not exist is a 404, a malformed one a 400', async () => {
    expect((await callApi(setup.gateway.baseUrl, 'GET', `/generations/gen_${'A'.repeat(24)}`, { key: setup.gateway.management_key })).status).toBe(404);
    expect((await callApi(setup.gateway.baseUrl, 'GET', '/generations/nope', { key: setup.gateway.management_key })).status).toBe(400);
  });
});
