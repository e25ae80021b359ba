/**
 * A small closed-loop load generator: `connections` workers on one undici `Pool`, each sending its next
 * request as soon as the previous answer has been read to the end. A warm-up is run and thrown away (at least
 * `warmupMs` and at least `warmupRequests` answers, whichever ends later), then a fixed window is measured;
 * the run also stops by itself after `maxRequests` measured requests. Every answer is checked: a non-2xx
 * status, a thrown error, or a body that is not a whole message or stream counts as an error, so "zero
 * errors" is part of the result and not an assumption.
 */
import { Pool } from 'undici';

/** One load run against one target. */
export interface LoadOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  warmupMs: number;
  /**
   * Answers the warm-up must also have seen. A target idle between its windows can come back with part of its
   * optimised code discarded (bench/run.ts); a warm-up by time alone re-optimises it over tens of thousands of
   * requests at 64 connections but only a thousand or two at one connection.
   */
  warmupRequests?: number;
  durationMs: number;
  /** Upper bound on measured requests; the run ends early when reached. */
  maxRequests: number;
  /** Whether answers are SSE streams (checked for `message_stop` and no `error` event). */
  stream: boolean;
  /** Called right before the measured window opens (CPU snapshots). */
  onMeasureStart(): Promise<void>;
  /** Called right after the measured window closes. */
  onMeasureEnd(): Promise<void>;
}

/** What one load run measured. */
export interface LoadResult {
  requests: number;
  elapsedMs: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers with a status outside 2xx. */
  non2xx: number;
  /** Thrown errors and 2xx answers whose body was not a complete message or stream. */
  failures: number;
  /** The first problem seen, to make an error count actionable. */
  firstProblem: string | undefined;
}

// The longest a warm-up waits for its `warmupRequests` answers.
const WARMUP_CAP_MS = 15_000;

/** The value at quantile `q` (0..1) of sorted samples, nearest rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

function bodyProblem(text: string, stream: boolean): string | undefined {
  if (stream) {
    if (text.includes('event: error')) return `in-band error event: ${text.slice(text.indexOf('event: error'), 300)}`;
    return text.includes('event: message_stop') ? undefined : `stream without message_stop: ${text.slice(0, 200)}`;
  }
  return text.includes('"type":"message"') ? undefined : `not a message: ${text.slice(0, 200)}`;
}

/** Runs the warm-up and the measured window, and returns the measured window's numbers. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies = new Float64Array(options.maxRequests);
  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  let requests = 0;
  let non2xx = 0;
  let failures = 0;
  let firstProblem: string | undefined;
  let warmupAnswers = 0;
  let warmedUp: () => void = () => undefined;
  const warmupDone = new Promise<void>((resolve) => {
    warmedUp = resolve;
  });
  const warmupRequests = options.warmupRequests ?? 0;
  if (warmupRequests === 0) warmedUp();
  let windowClosed: () => void = () => undefined;
  const windowFull = new Promise<void>((resolve) => {
    windowClosed = resolve;
  });

  const note = (problem: string, isStatus: boolean): void => {
    if (phase !== 'measure') return;
    if (isStatus) non2xx++;
    else failures++;
    firstProblem ??= problem;
  };

  const worker = async (): Promise<void> => {
    while (phase !== 'done') {
      const startedAt = performance.now();
      try {
        const response = await pool.request({ path: options.path, method: 'POST', headers: options.headers, body: options.body });
        const text = await response.body.text();
        if (response.statusCode < 200 || response.statusCode >= 300) {
          note(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`, true);
          continue;
        }
        const problem = bodyProblem(text, options.stream);
        if (problem) {
          note(problem, false);
          continue;
        }
      } catch (error) {
        note(error instanceof Error ? `${error.name}: ${error.message}` : String(error), false);
        continue;
      }
      if (phase === 'warmup' && ++warmupAnswers === warmupRequests) warmedUp();
      if (phase !== 'measure') continue;
      latencies[requests++] = performance.now() - startedAt;
      if (requests >= options.maxRequests) windowClosed();
    }
  };

  const workers = Array.from({ length: options.connections }, () => worker());
  // A target that errors through its warm-up still gets measured (and its errors counted) after the cap.
  let warmupCap: NodeJS.Timeout | undefined;
  await Promise.all([
    new Promise((resolve) => setTimeout(resolve, options.warmupMs)),
    Promise.race([warmupDone, new Promise<void>((resolve) => (warmupCap = setTimeout(resolve, WARMUP_CAP_MS)))]),
  ]);
  clearTimeout(warmupCap);
  await options.onMeasureStart();
  phase = 'measure';
  const openedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([windowFull, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.durationMs)))]);
  clearTimeout(timer);
  phase = 'done';
  const elapsedMs = performance.now() - openedAt;
  await options.onMeasureEnd();
  await Promise.all(workers);
  await pool.close();

  const sorted = latencies.subarray(0, requests).sort();
  return {
    requests,
    elapsedMs,
    requestsPerSecond: (requests / elapsedMs) * 1000,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    non2xx,
    failures,
    firstProblem,
  };
}
