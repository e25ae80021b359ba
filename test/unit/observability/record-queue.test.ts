/**
 * The record queue with a writer that fails on command: batches, the bound (drops counted and logged), an
 * outage (records wait, retried with backoff, then written), a batch the database refuses (written row by row,
 * the bad rows dropped) and a hung write (timed out, retried).
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import { isPermanentWriteFailure, RecordQueue, type RecordWriter } from '#src/observability/record-queue.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

const record = (id: string) => ({ id }) as GenerationRecord;
const options = { limit: 5, batchSize: 2, flushIntervalMs: 10, retryBaseMs: 10, maxBackoffMs: 40, writeTimeoutMs: 200 };

function harness(write: RecordWriter, overrides: Partial<typeof options> = {}) {
  const logs: string[] = [];
  const counts = { written: 0, queueFull: 0, rejected: 0 };
  const queue = new RecordQueue(write, { ...options, ...overrides }, createLogger({ level: 'debug', sink: (line) => logs.push(line) }), {
    written: (count) => (counts.written += count),
    dropped: (count, reason) => (reason === 'queue_full' ? (counts.queueFull += count) : (counts.rejected += count)),
  });
  return { queue, logs, counts };
}

const sqlError = (code: string) => Object.assign(new Error('failed query'), { cause: Object.assign(new Error('driver'), { code }) });

describe('RecordQueue', () => {
  it('writes in batches of batchSize', async () => {
    const batches: string[][] = [];
    const { queue, counts } = harness(async (records) => void batches.push(records.map((entry) => entry.id)));
    for (const id of ['a', 'b', 'c']) queue.add(record(id));
    await queue.flush();
    expect(batches).toEqual([['a', 'b'], ['c']]);
    expect(counts.written).toBe(3);
    expect(queue.depth).toBe(0);
  });

  it('drops beyond its limit, counts every drop and logs once', () => {
    const { queue, counts, logs } = harness(() => new Promise(() => {}), { batchSize: 100 });
    const accepted = Array.from({ length: 8 }, (_, index) => queue.add(record(String(index))));
    expect(accepted).toEqual([true, true, true, true, true, false, false, false]);
    expect(counts.queueFull).toBe(3);
    expect(logs.filter((line) => line.includes('queue full'))).toHaveLength(1);
  });

  it('keeps records through an outage and writes them once the database is back', async () => {
    let down = true;
    const written: string[] = [];
    const { queue, logs } = harness(async (records) => {
      if (down) throw sqlError('08006');
      written.push(...records.map((entry) => entry.id));
    });
    queue.start();
    queue.add(record('a'));
    queue.add(record('b'));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(written).toEqual([]);
    expect(queue.depth).toBe(2);
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(written).toEqual(['a', 'b']);
    expect(logs.filter((line) => line.includes('cannot be written'))).toHaveLength(1);
    expect(logs.some((line) => line.includes('written again'))).toBe(true);
    await queue.close(100);
  });

  it('writes a refused batch row by row and drops only the refused rows', async () => {
    const written: string[] = [];
    const { queue, counts } = harness(async (records) => {
      if (records.some((entry) => entry.id === 'bad')) throw sqlError('23503');
      written.push(...records.map((entry) => entry.id));
    });
    for (const id of ['ok1', 'bad']) queue.add(record(id));
    await queue.flush();
    expect(written).toEqual(['ok1']);
    expect(counts.rejected).toBe(1);
    expect(queue.depth).toBe(0);
  });

  it('gives up on a hung write after writeTimeoutMs and tries again', async () => {
    let calls = 0;
    const { queue } = harness(async () => {
      calls += 1;
      if (calls === 1) await new Promise(() => {});
    }, { writeTimeoutMs: 30 });
    queue.start();
    queue.add(record('a'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(queue.depth).toBe(0);
    await queue.close(50);
  });

  it.each([
    ['23505', true],
    ['22P02', true],
    ['08006', false],
    ['57P01', false],
    ['42P01', false],
    [undefined, false],
  ])('SQLSTATE %s is a permanent failure: %s', (code, permanent) => {
    expect(isPermanentWriteFailure(code === undefined ? new Error('closed') : sqlError(code))).toBe(permanent);
  });
});
