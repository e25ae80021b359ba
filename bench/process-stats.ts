/**
 * Memory and CPU of a server under test read from /proc, so that a server of several processes (a cluster
 * primary and its workers) is measured as a whole: RSS and CPU are summed over the process and every
 * descendant. Linux only, like the rest of the bench's figures.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on every Linux the bench runs on). */
const TICKS_PER_SECOND = 100;

function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after its closing parenthesis.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** The pid and every live descendant of it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readStat(pid);
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(pid);
    children.set(stat.ppid, siblings);
  }
  const tree: number[] = [];
  const visit = (pid: number): void => {
    tree.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

function statusKilobytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident set size of the pids together, in bytes. */
export function rssBytes(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + statusKilobytes(pid, 'VmRSS') * 1024, 0);
}

/** User plus system CPU time of the pids together, in microseconds (10 ms resolution). */
export function cpuMicros(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + ((readStat(pid)?.ticks ?? 0) * 1_000_000) / TICKS_PER_SECOND, 0);
}

/** Megabytes (MiB) with no decimals, for tables. */
export function megabytes(bytes: number): string {
  return Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : 'n/a';
}

/** Samples a process tree's RSS on an interval and keeps the highest value seen. */
export class RssSampler {
  readonly #root: number;
  // Reading every /proc entry to find descendants costs milliseconds: done once per window.
  #tree: number[] | undefined;
  #timer: NodeJS.Timeout | undefined;
  #peak = 0;
  readonly samples: { atMs: number; bytes: number }[] = [];

  constructor(root: number) {
    this.#root = root;
  }

  /** The current RSS of the tree, also counted towards the peak. */
  sample(): number {
    this.#tree ??= processTree(this.#root);
    const bytes = rssBytes(this.#tree);
    this.#peak = Math.max(this.#peak, bytes);
    this.samples.push({ atMs: performance.now(), bytes });
    return bytes;
  }

  /** Starts sampling every `intervalMs` (a new window: the peak starts from zero). */
  start(intervalMs: number): void {
    this.stop();
    this.#tree = processTree(this.#root);
    this.#peak = 0;
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  /** Stops sampling and returns the peak of the window. */
  stop(): number {
    if (this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.sample();
    }
    return this.#peak;
  }
}
