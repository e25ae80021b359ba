/**
 * The durable count behind credit limits: what each key spent per UTC day, in `key_spend`. Every settled
 * request adds its cost to an in-memory tally (one map update, for every key, limited or not); the tally is
 * written as one upsert on a timer, off the request path. While the database is unreachable the tally waits
 * and grows by keys and days, never by requests. A period's spending is the database's sum plus what waits
 * here: exact for this instance; another instance's last second of spending may still be on its way.
 *
 * Each write is a batch with an id, claimed in `key_spend_batches` in the same statement: a batch whose
 * commit's reply was lost (the connection dropped after the database committed) is written again with the
 * same id and adds nothing the second time, so spending is never counted twice.
 */
import { randomUUID } from 'node:crypto';
import { and, gte, inArray, lt, sql, sum, type SQL } from '#src/store/drizzle.ts';
import type { Logger } from '#src/logger.ts';
import type { Database } from '#src/store/database.ts';
import { keySpend, keySpendBatches } from '#src/store/schema.ts';
import { isPermanentWriteFailure } from '#src/observability/record-queue.ts';
import { utcDay, type LimitPeriod } from '#src/limits/limit-period.ts';

interface Entry {
  keyHash: string;
  day: string;
  cost: number;
}

function entryKey(keyHash: string, day: string): string {
  return `${keyHash}|${day}`;
}

/** The period's bounds as days: [first day, day after the last). */
function dayBounds(period: LimitPeriod): { from: string | null; to: string | null } {
  return { from: period.start ? utcDay(period.start.getTime()) : null, to: period.end ? utcDay(period.end.getTime()) : null };
}

/** The spending ledger of one gateway instance. */
export class SpendLedger {
  #pending = new Map<string, Entry>();
  /** The batch being written: still counted by reads until it has committed (a read may count it twice then, never miss it). */
  #inFlight: readonly Entry[] = [];
  /** A batch whose write failed for want of the database: written again first, with its id, before anything new. */
  #unconfirmed: { id: string; entries: Entry[] } | undefined;
  #lastPrune = 0;
  #writing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  readonly #database: Database;
  readonly #logger: Logger;
  readonly #flushIntervalMs: number;

  constructor(options: { database: Database; logger: Logger; flushIntervalMs: number }) {
    this.#database = options.database;
    this.#logger = options.logger;
    this.#flushIntervalMs = options.flushIntervalMs;
  }

  /** Adds a settled request's cost to its key's day. */
  add(keyHash: string, day: string, cost: number): void {
    if (!(cost > 0)) return;
    const key = entryKey(keyHash, day);
    const entry = this.#pending.get(key);
    if (entry) entry.cost += cost;
    else this.#pending.set(key, { keyHash, day, cost });
  }

  start(): void {
    this.#timer = setInterval(() => void this.flush(), this.#flushIntervalMs);
    this.#timer.unref();
  }

  /** Writes what waits; a failed write puts it back to wait for the next try. */
  flush(): Promise<void> {
    this.#writing ??= this.#write().finally(() => {
      this.#writing = undefined;
    });
    return this.#writing;
  }

  /** Stops the timer and writes what waits, for at most `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    clearInterval(this.#timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const left = this.#pending.size + (this.#unconfirmed?.entries.length ?? 0);
    if (left > 0) this.#logger.warn('key spending not written at shutdown', { entries: left });
  }

  /** What the key spent in the period: the database's sum plus what waits here. Throws when the database fails. */
  async periodSpend(keyHash: string, period: LimitPeriod): Promise<number> {
    const spent = await this.spendOf([keyHash], period);
    return spent.get(keyHash) ?? 0;
  }

  /** What each key spent in the period (keys without spending are absent): the database's sum plus what waits here. */
  async spendOf(keyHashes: readonly string[], period: LimitPeriod): Promise<Map<string, number>> {
    const totals = await readSpend(this.#database, keyHashes, period);
    const { from, to } = dayBounds(period);
    const wanted = new Set(keyHashes);
    for (const entry of [...this.#pending.values(), ...this.#inFlight, ...(this.#unconfirmed?.entries ?? [])]) {
      if (!wanted.has(entry.keyHash) || (from && entry.day < from) || (to && entry.day >= to)) continue;
      totals.set(entry.keyHash, (totals.get(entry.keyHash) ?? 0) + entry.cost);
    }
    return totals;
  }

  async #write(): Promise<void> {
    // A batch that may or may not have committed goes again, alone and with its id, before anything new.
    if (this.#unconfirmed) {
      const { id, entries } = this.#unconfirmed;
      if (!(await this.#writeBatch(id, entries))) return;
      this.#unconfirmed = undefined;
    }
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    await this.#writeBatch(randomUUID(), batch);
  }

  /** Writes one batch; false when it must wait (kept as the unconfirmed batch). */
  async #writeBatch(id: string, batch: Entry[]): Promise<boolean> {
    this.#inFlight = batch;
    try {
      await this.#upsert(id, batch);
    } catch (error) {
      this.#inFlight = [];
      if (isPermanentWriteFailure(error)) {
        // Refused as a whole, so nothing of it was added: row by row, each with an id of its own.
        const left = await this.#writeOneByOne(batch);
        if (left.length > 0) this.#unconfirmed = { id: randomUUID(), entries: left };
      } else {
        this.#unconfirmed = { id, entries: batch };
      }
      const waiting = this.#unconfirmed?.entries.length ?? 0;
      if (waiting > 0 && !this.#failing) this.#logger.warn('key spending cannot be written; it waits and is retried', { entries: waiting, error });
      this.#failing = waiting > 0;
      return waiting === 0;
    }
    this.#inFlight = [];
    if (this.#failing) this.#logger.info('key spending is written again');
    this.#failing = false;
    await this.#prune();
    return true;
  }

  async #upsert(id: string, entries: readonly Entry[]): Promise<void> {
    const rows = JSON.stringify(entries.map((entry) => ({ key_hash: entry.keyHash, day: entry.day, cost: entry.cost })));
    await this.#database.db.execute(sql`
      with claimed as (insert into ${keySpendBatches} (id) values (${id}) on conflict (id) do nothing returning id)
      insert into ${keySpend} (key_hash, day, cost)
      select key_hash, day, cost from jsonb_to_recordset(${rows}::jsonb) as spend(key_hash text, day date, cost double precision)
      where exists (select 1 from claimed)
      on conflict (key_hash, day) do update set cost = ${keySpend}.cost + excluded.cost`);
  }

  /** Forgets batch ids older than a day (a batch is retried within seconds or minutes), at most hourly. */
  async #prune(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastPrune < 3_600_000) return;
    this.#lastPrune = now;
    await this.#database.db.execute(sql`delete from ${keySpendBatches} where written_at < now() - interval '1 day'`).catch((error: unknown) => {
      this.#logger.warn('old key spending batch ids could not be deleted', { error });
    });
  }

  /** Writes a refused batch row by row, dropping rows the database refuses (a key deleted with its account). */
  async #writeOneByOne(batch: readonly Entry[]): Promise<Entry[]> {
    const left: Entry[] = [];
    for (const [index, entry] of batch.entries()) {
      try {
        await this.#upsert(randomUUID(), [entry]);
      } catch (error) {
        if (!isPermanentWriteFailure(error)) return [...left, ...batch.slice(index)];
        this.#logger.warn('key spending refused by the database and dropped', { key_hash: entry.keyHash, day: entry.day, error });
      }
    }
    return left;
  }
}

/** What each key spent in the period according to the database alone (keys without spending are absent). */
export async function readSpend(database: Database, keyHashes: readonly string[], period: LimitPeriod): Promise<Map<string, number>> {
  if (keyHashes.length === 0) return new Map();
  const { from, to } = dayBounds(period);
  const conditions: SQL[] = [inArray(keySpend.keyHash, [...keyHashes])];
  if (from) conditions.push(gte(keySpend.day, from));
  if (to) conditions.push(lt(keySpend.day, to));
  const rows = await database.db.select({ keyHash: keySpend.keyHash, cost: sum(keySpend.cost) }).from(keySpend).where(and(...conditions)).groupBy(keySpend.keyHash);
  return new Map(rows.map((row) => [row.keyHash, Number(row.cost ?? 0)]));
}
