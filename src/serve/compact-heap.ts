/**
 * Gives memory back to the system when the gateway has nothing to do. V8 grows its heap for bursts of
 * allocation and keeps the pages committed afterwards: start-up (linking a few hundred modules), the first
 * request of each operation (the validator compiles its schemas then) and any load peak each leave tens of
 * megabytes of free heap that an idle gateway would carry for good (README, Performance). A compacting
 * collection of V8's "last resort" flavour releases them; it takes some 50-100 ms, so it runs only while the
 * process is idle: once when the gateway starts serving, then whenever the heap has grown well past its last
 * compacted size and the event loop was nearly idle for a whole check interval. Only the serving process
 * does this (not tests' in-process servers).
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc` extension function (`--expose-gc`), with the options this module uses. */
type GcFunction = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

let gc: GcFunction | undefined;

function gcFunction(): GcFunction | undefined {
  gc ??= (globalThis as { gc?: GcFunction }).gc;
  if (gc) return gc;
  // A context created after the flag is set gets the `gc` function; the main context stays as it was.
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as GcFunction | undefined;
  return gc;
}

/** Collects and compacts the heap and returns the freed pages to the system; returns whether it could. */
export function compactHeap(): boolean {
  const collect = gcFunction();
  if (typeof collect !== 'function') return false;
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}

/** When idle compaction runs. */
export interface IdleCompactionOptions {
  /** How often the heap and the event loop are looked at. */
  checkEveryMs: number;
  /** Busiest the event loop may have been over the last interval (share of time, 0-1). */
  idleBelow: number;
  /** Growth of the committed heap over its size after the last compaction that is worth giving back. */
  growthBytes: number;
}

const DEFAULTS: IdleCompactionOptions = { checkEveryMs: 5000, idleBelow: 0.01, growthBytes: 16 * 2 ** 20 };

/** Compacts now, then whenever the process is idle after its heap has grown; returns the stop function. */
export function compactHeapWhenIdle(options: Partial<IdleCompactionOptions> = {}): () => void {
  const settings = { ...DEFAULTS, ...options };
  if (!compactHeap()) return () => undefined;
  let baseline = getHeapStatistics().total_heap_size;
  let previous = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
    if (busy >= settings.idleBelow || getHeapStatistics().total_heap_size < baseline + settings.growthBytes) return;
    compactHeap();
    baseline = getHeapStatistics().total_heap_size;
    previous = performance.eventLoopUtilization();
  }, settings.checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
