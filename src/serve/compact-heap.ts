/**
 * Gives memory back to the system when the gateway has nothing to do. V8 grows its heap for bursts of
 * allocation and keeps the pages committed afterwards: start-up (linking a few hundred modules), the first
 * request of each operation (the validator compiles its schemas then) and any load peak each leave tens of
 * megabytes of free heap that an idle gateway would carry for good (bench/JOURNAL.md). A compacting
 * collection of V8's "last resort" flavour releases them; it takes some 50-100 ms, so it runs only while the
 * process is idle: once when the gateway starts serving, once more when it first goes idle after its first
 * requests, then whenever the heap has grown well past its last compacted size and the event loop has been
 * nearly idle for a minute. Only the serving process does this (not tests' in-process servers).
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
  /** Busiest the event loop may have been over an interval (share of time, 0-1) for it to count as idle. */
  idleBelow: number;
  /** How long the event loop must have stayed idle, check after check, before a compaction. */
  idleForMs: number;
  /** Growth of the committed heap over its size after the last compaction that is worth giving back. */
  growthBytes: number;
  /** The same for the first compaction after the one at start, which one idle check is enough for. */
  settleGrowthBytes: number;
}

// A minute of quiet, not one idle check: a compaction shrinks the young generation and the heap's limits, and
// the next burst pays for growing them again. With a gap of 30 s between two bursts, the first 4 s of the
// second cost 20-30% more CPU per request than the same load without the compaction (bench/JOURNAL.md);
// lulls of seconds or tens of seconds are ordinary traffic, a minute of none is the burst being over. The
// exception is the gateway's first requests (each operation's first compiles its validators, caches fill):
// that growth happens once, and the first idle check after it gives it back.
const DEFAULTS: IdleCompactionOptions = { checkEveryMs: 5000, idleBelow: 0.01, idleForMs: 60_000, growthBytes: 16 * 2 ** 20, settleGrowthBytes: 4 * 2 ** 20 };

/** One check's reading: how busy the event loop was over the interval, and the committed heap now. */
export interface IdleReading {
  busy: number;
  heapBytes: number;
}

/** What the checks remember: the idle streak (milliseconds of consecutive idle intervals) and whether start-up has settled. */
export interface IdleState {
  streakMs: number;
  settled: boolean;
}

/**
 * One check: the state after it and whether to compact now. Before the first compaction after start, one idle
 * check and `settleGrowthBytes` of growth since `baselineBytes` are enough; after it, `idleForMs` of idle
 * checks and `growthBytes`. Pure, for table tests.
 */
export function idleCheck(state: IdleState, reading: IdleReading, baselineBytes: number, settings: IdleCompactionOptions): { state: IdleState; compact: boolean } {
  if (reading.busy >= settings.idleBelow) return { state: { ...state, streakMs: 0 }, compact: false };
  const streakMs = state.streakMs + settings.checkEveryMs;
  const [idleFor, growth] = state.settled ? [settings.idleForMs, settings.growthBytes] : [settings.checkEveryMs, settings.settleGrowthBytes];
  const compact = streakMs >= idleFor && reading.heapBytes >= baselineBytes + growth;
  return { state: { streakMs, settled: state.settled || compact }, compact };
}

/** Compacts now, then whenever the process has been idle a while after its heap has grown; returns the stop function. */
export function compactHeapWhenIdle(options: Partial<IdleCompactionOptions> = {}): () => void {
  const settings = { ...DEFAULTS, ...options };
  if (!compactHeap()) return () => undefined;
  let baseline = getHeapStatistics().total_heap_size;
  let previous = performance.eventLoopUtilization();
  let state: IdleState = { streakMs: 0, settled: false };
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
    const check = idleCheck(state, { busy, heapBytes: getHeapStatistics().total_heap_size }, baseline, settings);
    state = check.state;
    if (!check.compact) return;
    compactHeap();
    baseline = getHeapStatistics().total_heap_size;
    previous = performance.eventLoopUtilization();
  }, settings.checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
