/**
 * The `generations` batch insert on both drivers (PGlite writes a batch as one binary `COPY`): every value
 * reads back exactly as written (quotes, commas, newlines, empty strings against NULL, JSON strings and
 * objects, timestamps, fractions, the ends of each numeric range), a batch written again after it had committed
 * is skipped, and a value its column cannot hold fails as the INSERT reports it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { findGeneration, generationTotals, insertGenerations, listGenerations } from '#src/observability/generation-store.ts';
import { generationIdBound } from '#src/http/generation-id.ts';
import { sql } from '#src/store/drizzle.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';

describe.each(testDrivers())('insertGenerations (%s)', (driver) => {
  let test: TestDatabase;
  let account: Awaited<ReturnType<typeof initAccount>>;

  beforeAll(async () => {
    test = await openTestDatabase(driver);
    account = await initAccount(test.database, { name: 'store' });
  }, 60_000);
  afterAll(() => test?.drop());

  const record = (overrides: Partial<GenerationRecord> = {}): GenerationRecord => ({
    id: `gen_${randomUUID()}`,
    accountId: account.account_id,
    workspaceId: account.workspace_id,
    keyHash: account.api_key_hash,
    createdAt: new Date(Date.UTC(2026, 10, 23, 12, 0, 0, 123)),
    requestedModel: 'test/m',
    model: null,
    responseModel: null,
    provider: null,
    providerName: null,
    isByok: false,
    stream: true,
    status: 'error',
    httpStatus: 502,
    stopReason: null,
    errorType: 'UpstreamError:server',
    errorMessage: 'a "quoted", comma\nand newline',
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    usageEstimated: false,
    cost: 1.234e-7,
    timeToFirstByteMs: null,
    totalMs: 17,
    sessionId: '',
    userId: 'ünïcode "user", \\ back',
    trace: { custom: 'a,"b"', nested: { list: [1, null, 'x'] } },
    attempts: [{ provider: 'p', status: 'server_error' }],
    toolSteps: null,
    moderation: null,
    prompt: { messages: [{ role: 'user', content: 'line one\r\nline "two"' }] },
    completion: 'a JSON string' as unknown as GenerationRecord['completion'],
    contentExpiresAt: new Date(Date.UTC(2026, 11, 23, 0, 0, 0, 1)),
    ...overrides,
  });

  it('reads every value back as written', async () => {
    const written = [record(), record({ status: 'success', httpStatus: 200, stopReason: 'end_turn', errorType: null, errorMessage: null, sessionId: null, trace: null, prompt: null, completion: null, contentExpiresAt: null, cost: 0.5, model: 'test/m', responseModel: 'vendor-model-2026-01-01', provider: 'p', providerName: 'P, Inc.', isByok: true, timeToFirstByteMs: 3 })];
    // The batch must have gone in by COPY (not by the INSERT it falls back to), on either driver.
    let copied = 0;
    const { copyBinary } = test.database;
    const database = { ...test.database, copyBinary: async (...args: Parameters<typeof copyBinary>) => void (await copyBinary(...args), (copied += 1)) };
    await insertGenerations(database, written);
    expect(copied).toBe(1);
    for (const expected of written) expect(await findGeneration(test.database, account.account_id, expected.id)).toEqual(expected);
  });

  it('reads back the ends of each range: timestamps before 2000 and 1970, extreme integers and floats, uppercase uuids', async () => {
    const written = [
      record({ createdAt: new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 999)), contentExpiresAt: new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 1)), inputTokens: 2 ** 31 - 1, outputTokens: -(2 ** 31), cost: 1.7976931348623157e308, totalMs: 0 }),
      record({ createdAt: new Date(Date.UTC(2262, 3, 11, 23, 47, 16, 854)), cost: 5e-324, errorMessage: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and a NUL-free\ttab', workspaceId: account.workspace_id.toUpperCase() }),
    ];
    await insertGenerations(test.database, written);
    const [first, second] = written as [GenerationRecord, GenerationRecord];
    expect(await findGeneration(test.database, account.account_id, first.id)).toEqual(first);
    expect(await findGeneration(test.database, account.account_id, second.id)).toEqual({ ...second, workspaceId: account.workspace_id });
  });

  it('refuses a batch holding a value its column cannot hold (a fraction for an integer), as the INSERT does', async () => {
    let copied = 0;
    const { copyBinary } = test.database;
    const database = { ...test.database, copyBinary: async (...args: Parameters<typeof copyBinary>) => void (await copyBinary(...args), (copied += 1)) };
    const bad = record({ totalMs: 1.5 });
    await expect(insertGenerations(database, [record(), bad])).rejects.toThrow();
    expect(copied).toBe(0);
    expect(await findGeneration(test.database, account.account_id, bad.id)).toBeUndefined();
  });

  it('skips a batch written again after it had committed, and writes its new records', async () => {
    const first = record();
    await insertGenerations(test.database, [first]);
    const second = record();
    await insertGenerations(test.database, [first, second]);
    expect(await findGeneration(test.database, account.account_id, first.id)).toEqual(first);
    expect(await findGeneration(test.database, account.account_id, second.id)).toEqual(second);
  });
  it('writes batches one after another and at once, large then small, each exactly (the COPY buffer is kept between batches, never shared)', async () => {
    // Every batch must go in by COPY: a file overwritten by another batch would be refused and written again
    // by the INSERT, which would hide it.
    let copied = 0;
    const { copyBinary } = test.database;
    const database = { ...test.database, copyBinary: async (...args: Parameters<typeof copyBinary>) => void (await copyBinary(...args), (copied += 1)) };
    // Over 64 kB: the kept buffer grows once, then serves the smaller batches after it.
    const large = Array.from({ length: 200 }, (_unused, index) => record({ errorMessage: `large ${index} ${'x'.repeat(400)}` }));
    await insertGenerations(database, large);
    const small = [record({ errorMessage: 'small' })];
    await insertGenerations(database, small);
    const together = [Array.from({ length: 50 }, () => record({ errorMessage: 'one' })), Array.from({ length: 3 }, () => record({ errorMessage: 'two' }))];
    await Promise.all(together.map((batch) => insertGenerations(database, batch)));
    expect(copied).toBe(4);
    for (const expected of [...large, ...small, ...together.flat()]) expect(await findGeneration(test.database, account.account_id, expected.id)).toEqual(expected);
  });

  it("pages an account's records newest first from its key, bounded by time, without another account's", async () => {
    const other = await initAccount(test.database, { name: 'other' });
    const base = Date.UTC(2026, 10, 26, 21, 0, 0, 0);
    // Two records in one millisecond, one a millisecond later, one a second later; ids as newGenerationId makes them.
    const at = (offset: number, random: string) => record({ id: `${generationIdBound(base + offset)}${random}`, createdAt: new Date(base + offset), prompt: null, completion: null, contentExpiresAt: null });
    const written = [at(0, 'AAAAAAAAAAAAAAA'), at(0, 'zzzzzzzzzzzzzzz'), at(1, '---------------'), at(1000, '_______________')];
    await insertGenerations(test.database, [...written, { ...at(500, 'BBBBBBBBBBBBBBB'), accountId: other.account_id, workspaceId: other.workspace_id }]);
    const filter = { accountId: account.account_id, from: new Date(base), to: new Date(base + 1001) };
    const newestFirst = [...written].reverse().map((entry) => entry.id);

    const pages: string[][] = [];
    let cursor: { id: string } | undefined;
    do {
      const rows = await listGenerations(test.database, filter, cursor, 3);
      pages.push(rows.slice(0, 3).map((row) => row.id));
      cursor = rows.length > 3 ? { id: rows[2]!.id } : undefined;
    } while (cursor);
    expect(pages).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3)]);

    const ids = async (from: number, to: number) => (await listGenerations(test.database, { accountId: account.account_id, from: new Date(base + from), to: new Date(base + to) }, undefined, 10)).map((row) => row.id);
    expect(await ids(0, 1)).toEqual(newestFirst.slice(2));
    expect(await ids(1, 1000)).toEqual([newestFirst[1]]);
    expect(await ids(1000, 1001)).toEqual([newestFirst[0]]);
    expect((await generationTotals(test.database, filter)).requests).toBe(4);
    expect(await findGeneration(test.database, other.account_id, written[0]!.id)).toBeUndefined();

    // The plan reads the account's range of the primary key backwards: no other index, no sort.
    const plan = await test.database.db.execute(sql`explain select * from generations where account_id = ${account.account_id} and id >= ${generationIdBound(base)} order by id desc limit 3`);
    const text = ((plan as unknown as { rows: Record<string, string>[] }).rows ?? (plan as unknown as Record<string, string>[])).map((row) => Object.values(row)[0]).join('\n');
    expect(text).toMatch(/Index Scan Backward using generations_pkey[^]*Index Cond: \(\(account_id = [^]*AND \(id >= /);
    expect(text).not.toContain('Sort');
  });
});
