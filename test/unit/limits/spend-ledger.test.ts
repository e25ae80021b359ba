/**
 * The spending ledger on both drivers when the reply to a committed write is lost (the connection drops after
 * the database committed): the batch is written again with its id and adds nothing the second time, while
 * spending added meanwhile is written as a batch of its own. A write that never reached the database is
 * written once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import { initAccount } from '#src/keys/accounts.ts';
import type { Database } from '#src/store/database.ts';
import { SpendLedger, readSpend } from '#src/limits/spend-ledger.ts';
import { limitPeriod, utcDay } from '#src/limits/limit-period.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';

type Fault = 'none' | 'reply-lost' | 'unreachable';

/** The database, with the next write's fault chosen by the test. */
function faulty(database: Database): { database: Database; next(fault: Fault): void } {
  let fault: Fault = 'none';
  const db = new Proxy(database.db, {
    get(target, property, receiver) {
      if (property !== 'execute') return Reflect.get(target, property, receiver) as unknown;
      return async (query: Parameters<Database['db']['execute']>[0]) => {
        const now = fault;
        fault = 'none';
        if (now === 'unreachable') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        const result = await target.execute(query);
        if (now === 'reply-lost') throw new Error('Connection terminated unexpectedly');
        return result;
      };
    },
  });
  return { database: { ...database, db }, next: (chosen) => void (fault = chosen) };
}

describe.each(testDrivers())('SpendLedger (%s)', (driver) => {
  let test: TestDatabase;
  let keyHash: string;

  beforeAll(async () => {
    test = await openTestDatabase(driver);
    keyHash = (await initAccount(test.database, { name: 'ledger' })).api_key_hash;
  }, 60_000);
  afterAll(() => test?.drop());

  const spent = async () => (await readSpend(test.database, [keyHash], limitPeriod(null, Date.now()))).get(keyHash) ?? 0;

  it('counts a batch once when the reply to its commit was lost, and writes what came meanwhile', async () => {
    const { database, next } = faulty(test.database);
    const ledger = new SpendLedger({ database, logger: createLogger({ level: 'error' }), flushIntervalMs: 60_000 });
    const today = utcDay(Date.now());
    const before = await spent();
    ledger.add(keyHash, today, 0.25);
    next('reply-lost');
    await ledger.flush();
    expect(await spent()).toBeCloseTo(before + 0.25, 9);
    ledger.add(keyHash, today, 0.5);
    await ledger.flush();
    expect(await spent()).toBeCloseTo(before + 0.75, 9);
    // Nothing waits any more: the ledger's own count is the database's.
    expect(await ledger.periodSpend(keyHash, limitPeriod(null, Date.now()))).toBeCloseTo(before + 0.75, 9);
  });

  it('writes a batch that never reached the database once it is back', async () => {
    const { database, next } = faulty(test.database);
    const ledger = new SpendLedger({ database, logger: createLogger({ level: 'error' }), flushIntervalMs: 60_000 });
    const before = await spent();
    ledger.add(keyHash, utcDay(Date.now()), 0.125);
    next('unreachable');
    await ledger.flush();
    expect(await spent()).toBeCloseTo(before, 9);
    expect(await ledger.periodSpend(keyHash, limitPeriod(null, Date.now()))).toBeCloseTo(before + 0.125, 9);
    await ledger.flush();
    expect(await spent()).toBeCloseTo(before + 0.125, 9);
  });
});
