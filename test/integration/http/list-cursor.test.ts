/**
 * Cursor paging of `GET /byok`, `GET /keys` and `GET /observability/destinations` (and the binding of
 * `GET /generations` cursors) over HTTP, on PGlite and
 * PostgreSQL: pages chained by `next_cursor` neither skip nor repeat an item while items are created and
 * deleted between pages (an offset page shifts with them), items created within one millisecond keep their
 * order, and a cursor the list did not return to the caller's account (another account's, another list's, an
 * altered one, or a well-signed one naming an impossible position) is a 400 in the spec's error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from '#src/store/drizzle.ts';
import { observabilityDestinations } from '#src/store/schema.ts';
import { startCredentialGateway, distinctiveKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

interface Page {
  data: Record<string, unknown>[];
  total: number;
  offset: number;
  limit: number;
  next_cursor: string | null;
}

/** One list: how to create and delete an item of the caller's account, and the item's id field. */
interface ListCase {
  path: string;
  /** The list's name in its cursors. */
  name: 'byok' | 'keys' | 'destinations';
  idField: 'id' | 'hash';
  create(context: CredentialGateway, key?: string): Promise<string>;
  remove(context: CredentialGateway, id: string): Promise<void>;
}

async function created(response: { status: number; body: any }, field: string): Promise<string> {
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data[field] as string;
}

async function removed(response: { status: number; body: unknown }): Promise<void> {
  expect(response.status, JSON.stringify(response.body)).toBe(204);
}

const LISTS: ListCase[] = [
  {
    path: '/byok',
    name: 'byok',
    idField: 'id',
    create: async (context, key) => created(await context.call('POST', '/byok', { ...as(key), body: { provider: 'groq', key: distinctiveKey('gsk_') } }), 'id'),
    remove: async (context, id) => removed(await context.call('DELETE', `/byok/${id}`)),
  },
  {
    path: '/keys',
    name: 'keys',
    idField: 'hash',
    create: async (context, key) => created(await context.call('POST', '/keys', { ...as(key), body: { kind: 'inference', name: 'paged' } }), 'hash'),
    remove: async (context, hash) => removed(await context.call('DELETE', `/keys/${hash}`)),
  },
  {
    path: '/observability/destinations',
    name: 'destinations',
    idField: 'id',
    create: async (context, key) =>
      created(await context.call('POST', '/observability/destinations', { ...as(key), body: { name: 'hook', kind: 'webhook', endpoint: 'https://hooks.example.com/in', signing_secret: 'whsec_0123456789abcdef0123' } }), 'id'),
    remove: async (context, id) => removed(await context.call('DELETE', `/observability/destinations/${id}`)),
  },
];

/** The call's key option: the first account's management key unless another is given. */
function as(key: string | undefined): { key?: string } {
  return key === undefined ? {} : { key };
}

/** The answer to a cursor this list did not return to the caller's account. */
const REFUSED_CURSOR = {
  error: {
    code: 400,
    message: 'Invalid request parameters: cursor is not a next_cursor this list returned to this account',
    details: [{ path: '/query/cursor', message: 'must be the next_cursor of a page of this list, for this account' }],
  },
};

function withQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

describe.each(testDrivers())('cursor paging of the management lists on %s', (driver) => {
  let context: CredentialGateway;

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
  });
  afterAll(async () => {
    await context?.close();
  });

  async function list(path: string, key?: string): Promise<Page> {
    const response = await context.call<Page>('GET', path, key === undefined ? {} : { key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  describe.each(LISTS)('GET $path', (listCase) => {
    const idsOf = (page: Page) => page.data.map((item) => item[listCase.idField] as string);

    it('chains pages by next_cursor without skipping or repeating an item while items are created and deleted', async () => {
      const before = idsOf(await list(withQuery(listCase.path, 'limit=100')));
      const seeded: string[] = [];
      for (let index = 0; index < 7; index += 1) seeded.push(await listCase.create(context));
      const everyItem = idsOf(await list(withQuery(listCase.path, 'limit=100')));
      expect(everyItem).toHaveLength(before.length + 7);

      const first = await list(withQuery(listCase.path, 'limit=3'));
      expect(first).toMatchObject({ offset: 0, limit: 3, next_cursor: expect.any(String) });
      const seen = idsOf(first);
      // Between the pages: an item already listed is deleted (offset paging then skips the item that moves up),
      // and new ones are created.
      const deleted = seen[0] as string;
      await listCase.remove(context, deleted);
      const addedMeanwhile = [await listCase.create(context), await listCase.create(context)];
      let cursor = first.next_cursor;
      while (cursor !== null) {
        const page = await list(withQuery(listCase.path, `limit=3&cursor=${encodeURIComponent(cursor)}`));
        expect(page.offset).toBe(0);
        seen.push(...idsOf(page));
        cursor = page.next_cursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      // Every item that existed throughout was listed exactly once, in the list's own order.
      const kept = everyItem.filter((id) => id !== deleted);
      expect(seen.filter((id) => !addedMeanwhile.includes(id))).toEqual(everyItem);
      expect(seen.filter((id) => kept.includes(id))).toEqual(kept);

      // The deprecated offset still pages, and its pages carry a cursor that continues where they end.
      const byOffset = await list(withQuery(listCase.path, 'offset=2&limit=2'));
      const now = idsOf(await list(withQuery(listCase.path, 'limit=100')));
      expect(idsOf(byOffset)).toEqual(now.slice(2, 4));
      const continued = await list(withQuery(listCase.path, `limit=2&cursor=${encodeURIComponent(byOffset.next_cursor as string)}`));
      expect(idsOf(continued)).toEqual(now.slice(4, 6));
    });

    it('answers next_cursor null on the last page', async () => {
      const whole = await list(withQuery(listCase.path, 'limit=100'));
      expect(whole.next_cursor).toBeNull();
      const exact = await list(withQuery(listCase.path, `limit=${whole.data.length}`));
      expect(exact.next_cursor).toBeNull();
    });

    it('answers 400 to another account’s cursor, and that account pages with its own', async () => {
      const theirItem = await listCase.create(context, context.other.management_key);
      await listCase.create(context, context.other.management_key);
      for (let index = 0; index < 2; index += 1) await listCase.create(context);
      const mine = (await list(withQuery(listCase.path, 'limit=1'))).next_cursor as string;
      const replayed = await context.call('GET', withQuery(listCase.path, `cursor=${encodeURIComponent(mine)}`), { key: context.other.management_key });
      expect(replayed).toEqual({ status: 400, body: REFUSED_CURSOR });
      const theirFirst = await list(withQuery(listCase.path, 'limit=1'), context.other.management_key);
      const theirNext = await list(withQuery(listCase.path, `limit=100&cursor=${encodeURIComponent(theirFirst.next_cursor as string)}`), context.other.management_key);
      expect([...idsOf(theirFirst), ...idsOf(theirNext)]).toContain(theirItem);
      // Their cursor is refused to the first account in turn.
      const back = await context.call('GET', withQuery(listCase.path, `cursor=${encodeURIComponent(theirFirst.next_cursor as string)}`));
      expect(back).toEqual({ status: 400, body: REFUSED_CURSOR });
    });

    it('accepts a cursor signed with the gateway’s master key for the caller (the signed cases below are meaningful)', async () => {
      for (let index = 0; index < 2; index += 1) await listCase.create(context);
      const first = await list(withQuery(listCase.path, 'limit=1'));
      const decoded = JSON.parse(Buffer.from((first.next_cursor as string).split('.')[0] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
      const position = { createdAt: decoded.c as string, id: decoded.i as string, provider: decoded.p as string, sortOrder: decoded.s as number };
      expect(context.cursors.encode(listCase.name, context.gateway.account_id, position)).toBe(first.next_cursor);
    });

    const otherList = listCase.path === '/keys' ? '/byok' : '/keys';
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    it.each([
      ['text that is no cursor', 'not-a-cursor'],
      ['base64 of an empty object', json({})],
      ['a cursor without its digest', 'unsigned'],
      ['a cursor whose position was altered', 'altered'],
      ['a signed cursor naming a time that does not exist (February 30)', 'feb30'],
      ['a signed cursor with a sort_order past a 32-bit integer', 'bigSortOrder'],
      [`a cursor of ${otherList}`, 'otherList'],
    ])('answers 400 in the error shape to %s', async (_label, kind) => {
      let cursor = kind;
      if (kind === 'otherList') cursor = (await list(withQuery(otherList, 'limit=1'))).next_cursor as string;
      if (kind === 'unsigned' || kind === 'altered' || kind === 'feb30' || kind === 'bigSortOrder') {
        const valid = (await list(withQuery(listCase.path, 'limit=1'))).next_cursor as string;
        const [payload, digest] = valid.split('.') as [string, string];
        const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
        const position = { createdAt: decoded.c as string, id: decoded.i as string, provider: (decoded.p as string | undefined) ?? 'groq', sortOrder: (decoded.s as number | undefined) ?? 0 };
        if (kind === 'unsigned') cursor = payload;
        if (kind === 'altered') cursor = `${json({ ...decoded, c: '2001-01-01T00:00:00.000000Z' })}.${digest}`;
        if (kind === 'feb30') cursor = context.cursors.encode(listCase.name, context.gateway.account_id, { ...position, createdAt: '2025-02-30T10:00:00.000000Z' });
        // Outside /byok the sort_order is not read: the time makes the position impossible there.
        if (kind === 'bigSortOrder') {
          cursor = context.cursors.encode(listCase.name, context.gateway.account_id, { ...position, sortOrder: 2 ** 31, ...(listCase.name === 'byok' ? {} : { createdAt: '2025-02-30T10:00:00.000000Z' }) });
        }
      }
      const response = await context.call('GET', withQuery(listCase.path, `cursor=${encodeURIComponent(cursor)}`));
      expect(response).toEqual({ status: 400, body: REFUSED_CURSOR });
    });

    it('answers 400 to a cursor with a non-zero offset', async () => {
      const cursor = (await list(withQuery(listCase.path, 'limit=1'))).next_cursor as string;
      const response = await context.call('GET', withQuery(listCase.path, `offset=1&cursor=${encodeURIComponent(cursor)}`));
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 400,
        message: 'Invalid request parameters: cursor cannot be combined with offset',
        details: [{ path: '/query/offset', message: 'must be absent or 0 with a cursor' }],
      });
    });
  });

  it('binds GET /generations cursors to the account: refused to another, accepted by its own', async () => {
    const position = { id: 'gen_0mi7j743kQm9vYmFyYmF6cXV' };
    const theirs = context.cursors.encode('generations', context.other.account_id, position);
    const refused = await context.call('GET', `/generations?cursor=${encodeURIComponent(theirs)}`);
    expect(refused).toEqual({ status: 400, body: REFUSED_CURSOR });
    const own = await context.call<{ data: unknown[] }>('GET', `/generations?cursor=${encodeURIComponent(theirs)}`, { key: context.other.management_key });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const mine = await context.call('GET', `/generations?cursor=${encodeURIComponent(context.cursors.encode('generations', context.gateway.account_id, position))}`);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const keysCursor = context.cursors.encode('keys', context.gateway.account_id, { createdAt: '2025-11-20T09:14:03.512408Z', id: 'a'.repeat(64) });
    expect(await context.call('GET', `/generations?cursor=${encodeURIComponent(keysCursor)}`)).toEqual({ status: 400, body: REFUSED_CURSOR });
  });

  it('keeps the order of items created within one millisecond (microseconds and the id break ties)', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) ids.push(await LISTS[2]!.create(context));
    // Two created in the same microsecond, four more a microsecond apart, all within one millisecond: a
    // cursor rounded to milliseconds would repeat them.
    const micros = [100, 100, 101, 102, 103, 104];
    for (const [index, id] of ids.entries()) {
      const time = `1999-01-01T00:00:00.000${String(micros[index]).padStart(3, '0')}Z`;
      await context.database.db.update(observabilityDestinations).set({ createdAt: sql`${time}::timestamptz` }).where(eq(observabilityDestinations.id, id));
    }
    const whole = (await list('/observability/destinations?limit=100')).data.map((item) => item.id as string);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`/observability/destinations?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      paged.push(...page.data.map((item) => item.id as string));
      cursor = page.next_cursor;
      // A cursor that repeats items would page forever: stop once more pages came than items exist.
    } while (cursor !== null && paged.length <= whole.length);
    expect(paged).toEqual(whole);
    expect(paged.slice(0, 6).sort()).toEqual(ids.slice().sort());
    expect(paged.slice(0, 2)).toEqual(ids.slice(0, 2).sort());
  });
});
