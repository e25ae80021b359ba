/**
 * The bounded in-process queue between requests and the `generations` table. Records are written in batches
 * on a timer (or as soon as a batch is full), never on a request's path. When the database is unreachable the
 * records wait and the batch is retried with backoff; when the queue is full, new records are dropped and
 * counted (a metric and a log line), so a long outage costs records, never answers or memory.
 */
import type { Logger } from '#src/logger.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

/** Writes one batch; throws when nothing (or not everything) could be written. */
export type RecordWriter = (records: readonly GenerationRecord[]) => Promise<void>;

/** Counters the queue reports to (the metrics). */
export interface RecordQueueHooks {
  written(count: number): void;
  dropped(count: number, reason: 'queue_full' | 'rejected'): void;
}

/** Sizes and timings of the queue. */
export interface RecordQueueOptions {
  limit: number;
  batchSize: number;
  flushIntervalMs: number;
  /** First retry delay after a failed write; doubles up to `maxBackoffMs`. */
  retryBaseMs: number;
  maxBackoffMs: number;
  /** A write taking longer is treated as failed (a hung database); a late commit is harmless, ids are unique. */
  writeTimeoutMs: number;
}

// SQLSTATE classes of a batch that will never be written as it is (a bad value, a broken constraint): the
// rows are then tried one by one and the rejected ones dropped. Anything else (connection, shutdown, a
// missing table during a restore) is an outage: the batch waits.
const PERMANENT_SQLSTATE_CLASSES = new Set(['22', '23']);

function sqlState(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown }; code?: unknown } | undefined)?.cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Whether a failed write can never succeed with the same rows. */
export function isPermanentWriteFailure(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && PERMANENT_SQLSTATE_CLASSES.has(state.slice(0, 2));
}

/** The queue; `start` arms its timer, `close` writes what it can and stops. */
export class RecordQueue {
  private buffer: GenerationRecord[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private retryAt = 0;
  private droppedSinceLog = 0;
  private lastDropLog = 0;
  private readonly write: RecordWriter;
  private readonly options: RecordQueueOptions;
  private readonly logger: Logger;
  private readonly hooks: RecordQueueHooks;

  constructor(write: RecordWriter, options: RecordQueueOptions, logger: Logger, hooks: RecordQueueHooks) {
    this.write = write;
    this.options = options;
    this.logger = logger;
    this.hooks = hooks;
  }

  /** Records waiting to be written. */
  get depth(): number {
    return this.buffer.length;
  }

  /** Queues a record; false when the queue is full and the record was dropped. */
  add(record: GenerationRecord): boolean {
    if (this.buffer.length >= this.options.limit) {
      this.noteDrop();
      return false;
    }
    this.buffer.push(record);
    if (this.buffer.length >= this.options.batchSize && !this.writing && Date.now() >= this.retryAt) void this.flush();
    return true;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.buffer.length > 0 && !this.writing && Date.now() >= this.retryAt) void this.flush();
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Writes batches until the queue is empty or a write fails. */
  flush(): Promise<void> {
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
    return this.writing;
  }

  /** Stops the timer and tries, for at most `timeoutMs`, to write what is left. */
  async close(timeoutMs: number): Promise<void> {
    clearInterval(this.timer);
    this.retryAt = 0;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise<void>((resolve) => (timeout = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timeout);
    if (this.buffer.length > 0) this.logger.warn('generation records not written at shutdown', { records: this.buffer.length });
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.options.batchSize);
      try {
        await this.timed(batch);
        this.accept(batch.length);
      } catch (error) {
        const outage = isPermanentWriteFailure(error) ? await this.writeOneByOne(batch) : error;
        if (outage === undefined) continue;
        this.failures += 1;
        const delay = Math.min(this.options.maxBackoffMs, this.options.retryBaseMs * 2 ** (this.failures - 1));
        this.retryAt = Date.now() + delay;
        if (this.failures === 1) this.logger.warn('generation records cannot be written; they wait and are retried', { records: this.buffer.length, error: outage });
        return;
      }
    }
  }

  private async timed(batch: readonly GenerationRecord[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`writing generation records took over ${this.options.writeTimeoutMs} ms`)), this.options.writeTimeoutMs);
    });
    try {
      await Promise.race([this.write(batch), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private accept(count: number): void {
    this.buffer.splice(0, count);
    this.hooks.written(count);
    if (this.failures > 0) {
      this.logger.info('generation records are written again', { failed_attempts: this.failures });
      this.failures = 0;
      this.retryAt = 0;
    }
  }

  /** Writes a rejected batch row by row, dropping the rows the database refuses; returns an outage's error. */
  private async writeOneByOne(batch: readonly GenerationRecord[]): Promise<unknown> {
    for (const record of batch) {
      try {
        await this.timed([record]);
        this.accept(1);
      } catch (error) {
        if (!isPermanentWriteFailure(error)) return error;
        this.buffer.splice(0, 1);
        this.hooks.dropped(1, 'rejected');
        this.logger.warn('generation record rejected by the database and dropped', { generation_id: record.id, error });
      }
    }
    return undefined;
  }

  private noteDrop(): void {
    this.hooks.dropped(1, 'queue_full');
    this.droppedSinceLog += 1;
    const now = Date.now();
    if (now - this.lastDropLog >= 10_000) {
      this.logger.warn('generation record queue full: records dropped', { dropped: this.droppedSinceLog, queue_limit: this.options.limit });
      this.droppedSinceLog = 0;
      this.lastDropLog = now;
    }
  }
}
