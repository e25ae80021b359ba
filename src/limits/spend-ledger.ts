/**
 * The durable count behind credit limits: what each key spent per UTC day, in `key_spend`. Every settled
 * request adds its cost to an in-memory tally (one map update, for every key, limited or not); the tally is
 * written as one upsert on a timer, off the request path. While the database is unreachable the tally waits
 * and grows by keys and days, never by requests. A period's spending is the database's sum plus what waits
 * here: exact for this instance; another instance's last second of spending may still be on its way.
 */
import { and, gte, inArray, lt, sql, sum, type SQL } from '#src/store/drizzle.ts';
import type { Logger } from '#src/logger.ts';
import type { Database } from '#src/store/database.ts';
import { keySpend } from '#src/store/schema.ts';
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
    if (this.#pending.size > 0) this.#logger.warn('key spending not written at shutdown', { entries: this.#pending.size });
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
    for (const entry of [...this.#pending.values(), ...this.#inFlight]) {
      if (!wanted.has(entry.keyHash) || (from && entry.day < from) || (to && entry.day >= to)) continue;
      totals.set(entry.keyHash, (totals.get(entry.keyHash) ?? 0) + entry.cost);
    }
    return totals;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#inFlight = batch;
    try {
      await this.#upsert(batch);
    } catch (error) {
      this.#inFlight = [];
      const left = isPermanentWriteFailure(error) ? await this.#writeOneByOne(batch) : batch;
      for (const entry of left) this.add(entry.keyHash, entry.day, entry.cost);
      if (left.length > 0 && !this.#failing) this.#logger.warn('key spending cannot be written; it waits and is retried', { entries: left.length, error });
      this.#failing = left.length > 0;
      return;
    }
    this.#inFlight = [];
    if (this.#failing) this.#logger.info('key spending is written again');
    this.#failing = false;
  }

  async #upsert(entries: readonly Entry[]): Promise<void> {
    const rows = JSON.stringify(entries.map((entry) => ({ key_hash: entry.keyHash, day: entry.day, cost: entry.cost })));
    await this.#database.db.execute(sql`
      insert into ${keySpend} (key_hash, day, cost)
      select key_hash, day, cost from jsonb_to_recordset(${rows}::jsonb) as spend(key_hash text, day date, cost double precision)
      on conflict (key_hash, day) do update set cost = ${keySpend}.cost + excluded.cost`);
  }

  /** Writes a refused batch row by row, dropping rows the database refuses (a key deleted with its account). */
  async #writeOneByOne(batch: readonly Entry[]): Promise<Entry[]> {
    const left: Entry[] = [];
    for (const [index, entry] of batch.entries()) {
      try {
        await this.#upsert([entry]);
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
