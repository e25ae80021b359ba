/**
 * Servers under test run in child processes so that each one's CPU time is its own, apart from the load
 * generator's. Parent and child talk over the IPC channel: the child announces it is ready, answers CPU
 * snapshots (`process.cpuUsage`, microseconds), and exits on request (which also flushes `--cpu-prof`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Session } from 'node:inspector/promises';
import type { GCProfiler } from 'node:v8';
import { fileURLToPath } from 'node:url';

/** A message from the parent to a child. */
type ParentMessage =
  | { type: 'cpu'; id: number }
  | { type: 'memory'; id: number }
  | { type: 'profile-start'; id: number }
  | { type: 'profile-stop'; id: number; path: string }
  | { type: 'heap-start'; id: number; samplingInterval: number; survivorsOnly?: boolean }
  | { type: 'heap-stop'; id: number; path: string }
  | { type: 'gc-start'; id: number }
  | { type: 'gc-stop'; id: number }
  | { type: 'stop' };

/** A message from a child to the parent. */
type ChildMessage =
  | { type: 'ready'; ready: unknown }
  | { type: 'cpu'; id: number; micros: number }
  | { type: 'memory'; id: number; memory: ChildMemory }
  | { type: 'gc'; id: number; gc: ChildCollections }
  | { type: 'done'; id: number }
  | { type: 'failed'; message: string };

function isChildMessage(value: unknown): value is ChildMessage {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function isParentMessage(value: unknown): value is ParentMessage {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Where a child's memory is, in bytes: V8's heap (committed and live), code, and memory outside the heap. */
export interface ChildMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  /** Memory of objects V8 tracks outside its heap: ArrayBuffers, WebAssembly memories (reserved size). */
  external: number;
  arrayBuffers: number;
  /** Bytecode and machine code in the heap. */
  code: number;
}

/** The collections in a child over a window, and what its scavenges moved to the old generation. */
export interface ChildCollections {
  scavenges: number;
  /** Full collections (mark-compact), incremental or not. */
  markCompacts: number;
  /** Growth of the old and large-object spaces across the scavenges: the bytes they promoted. */
  promotedBytes: number;
}

/** A running child server, seen from the parent. */
export interface ChildServer<Ready> {
  /** What the child reported once it was listening (its origin, keys). */
  ready: Ready;
  pid: number;
  /** User plus system CPU time the child has used since it started, in microseconds. */
  cpuMicros(): Promise<number>;
  /** The child's own view of its memory. */
  memory(): Promise<ChildMemory>;
  /** Starts the V8 CPU profiler in the child (the measured window only, unlike `--cpu-prof`). */
  startProfile(): Promise<void>;
  /** Stops the profiler and has the child write the `.cpuprofile` to `path`. */
  stopProfile(path: string): Promise<void>;
  /**
   * Starts V8's sampling heap profiler in the child, keeping the samples of objects the collector has since
   * freed too: what it then reports is everything allocated, not what is still alive. With `survivorsOnly`
   * the samples of objects the young-generation collector freed are dropped: what is left outlived a
   * scavenge (promoted to the old generation, or still young when sampling stopped).
   */
  startHeapSampling(samplingInterval: number, survivorsOnly?: boolean): Promise<void>;
  /** Stops the heap profiler and has the child write the `.heapprofile` to `path`. */
  stopHeapSampling(path: string): Promise<void>;
  /** Starts counting the child's collections (V8's `GCProfiler`, which reads the heap's spaces around each). */
  startGcCount(): Promise<void>;
  /** Stops counting and returns the window's collections. */
  stopGcCount(): Promise<ChildCollections>;
  /** Asks the child to close and exit, and waits for it (killing it after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** How to start a child server. */
export interface StartChildOptions {
  /** The child's entry module. */
  script: URL;
  env?: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. `--cpu-prof`. */
  execArgv?: string[];
  /** How long the child may take to report ready. */
  readyTimeoutMs?: number;
  /** A program the child runs under, with its arguments, before the Node binary (`valgrind …`). */
  launcher?: readonly string[];
}

/** Spawns `script` on this same Node binary and resolves with what it reports once ready. */
export async function startChild<Ready>(options: StartChildOptions): Promise<ChildServer<Ready>> {
  const nodeArgs = [...(options.execArgv ?? []), fileURLToPath(options.script)];
  const [command, ...commandArgs] = options.launcher && options.launcher.length > 0 ? [...options.launcher, process.execPath, ...nodeArgs] : [process.execPath, ...nodeArgs];
  const child: ChildProcess = spawn(command!, commandArgs, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  const pending = new Map<number, (answer: unknown) => void>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.script.pathname} did not report ready`)), options.readyTimeoutMs ?? 60_000);
    child.once('exit', (code) => reject(new Error(`${options.script.pathname} exited with ${code} before it was ready`)));
    child.on('message', (message: unknown) => {
      if (!isChildMessage(message)) return;
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.ready as Ready);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${options.script.pathname}: ${message.message}`));
      } else {
        pending.get(message.id)?.(message.type === 'cpu' ? message.micros : message.type === 'memory' ? message.memory : message.type === 'gc' ? message.gc : 0);
        pending.delete(message.id);
      }
    });
  });

  const ask = <T = number>(message: ParentMessage & { id: number }): Promise<T> =>
    new Promise<T>((resolve) => {
      pending.set(message.id, resolve as (answer: unknown) => void);
      child.send(message);
    });
  return {
    ready,
    pid: child.pid ?? -1,
    cpuMicros: () => ask({ type: 'cpu', id: nextId++ }),
    memory: () => ask<ChildMemory>({ type: 'memory', id: nextId++ }),
    startProfile: async () => void (await ask({ type: 'profile-start', id: nextId++ })),
    stopProfile: async (path) => void (await ask({ type: 'profile-stop', id: nextId++, path })),
    startHeapSampling: async (samplingInterval, survivorsOnly) => void (await ask({ type: 'heap-start', id: nextId++, samplingInterval, survivorsOnly })),
    stopHeapSampling: async (path) => void (await ask({ type: 'heap-stop', id: nextId++, path })),
    startGcCount: async () => void (await ask({ type: 'gc-start', id: nextId++ })),
    stopGcCount: () => ask<ChildCollections>({ type: 'gc-stop', id: nextId++ }),
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null) return;
      child.send({ type: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The child's side: reports `ready` to the parent, answers CPU snapshots, and on `stop` runs `close`
 * and exits normally (a normal exit is what makes `--cpu-prof` write its profile).
 */
export function serveParent(ready: unknown, close: () => Promise<void> | void): void {
  if (!process.send) throw new Error('this module runs as a child of bench/run.ts (it needs an IPC channel)');
  let session: Session | undefined;
  let gcProfiler: GCProfiler | undefined;
  const reply = (message: ChildMessage): void => void process.send?.(message);
  process.on('message', async (message: unknown) => {
    if (!isParentMessage(message)) return;
    if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      reply({ type: 'cpu', id: message.id, micros: usage.user + usage.system });
    } else if (message.type === 'memory') {
      const usage = process.memoryUsage();
      const { getHeapCodeStatistics } = await import('node:v8');
      const code = getHeapCodeStatistics();
      const memory = { ...usage, code: code.code_and_metadata_size + code.bytecode_and_metadata_size };
      reply({ type: 'memory', id: message.id, memory });
    } else if (message.type === 'profile-start') {
      // Loaded on demand: a child's idle memory is part of what the bench measures.
      const { Session } = await import('node:inspector/promises');
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      reply({ type: 'done', id: message.id });
    } else if (message.type === 'profile-stop') {
      const result = await session?.post('Profiler.stop');
      if (result) writeFileSync(message.path, JSON.stringify(result.profile));
      session?.disconnect();
      session = undefined;
      reply({ type: 'done', id: message.id });
    } else if (message.type === 'heap-start') {
      const { Session } = await import('node:inspector/promises');
      session = new Session();
      session.connect();
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: message.samplingInterval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !message.survivorsOnly,
      });
      reply({ type: 'done', id: message.id });
    } else if (message.type === 'heap-stop') {
      const result = await session?.post('HeapProfiler.stopSampling');
      if (result) writeFileSync(message.path, JSON.stringify(result.profile));
      await session?.post('HeapProfiler.disable');
      session?.disconnect();
      session = undefined;
      reply({ type: 'done', id: message.id });
    } else if (message.type === 'gc-start') {
      const { GCProfiler } = await import('node:v8');
      gcProfiler = new GCProfiler();
      gcProfiler.start();
      reply({ type: 'done', id: message.id });
    } else if (message.type === 'gc-stop') {
      const statistics = (gcProfiler?.stop() as { statistics?: GcStatistic[] } | undefined)?.statistics ?? [];
      gcProfiler = undefined;
      reply({ type: 'gc', id: message.id, gc: summarizeCollections(statistics) });
    } else {
      void Promise.resolve()
        .then(close)
        .finally(() => process.exit(0));
    }
  });
  process.send({ type: 'ready', ready } satisfies ChildMessage);
}

/** One entry of `GCProfiler`'s statistics: the kind of collection and the heap's spaces before and after it. */
interface GcStatistic {
  gcType: string;
  beforeGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
  afterGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
}

// Where a scavenge puts what it promotes (a young large object moves to the large-object space whole).
const PROMOTION_SPACES = new Set(['old_space', 'large_object_space']);

function promotionSpaceUse(spaces: GcStatistic['beforeGC']['heapSpaceStatistics']): number {
  let used = 0;
  for (const space of spaces) if (PROMOTION_SPACES.has(space.spaceName)) used += space.spaceUsedSize;
  return used;
}

function summarizeCollections(statistics: readonly GcStatistic[]): ChildCollections {
  const counted: ChildCollections = { scavenges: 0, markCompacts: 0, promotedBytes: 0 };
  for (const entry of statistics) {
    if (entry.gcType === 'Scavenge') {
      counted.scavenges += 1;
      counted.promotedBytes += promotionSpaceUse(entry.afterGC.heapSpaceStatistics) - promotionSpaceUse(entry.beforeGC.heapSpaceStatistics);
    } else if (entry.gcType === 'MarkSweepCompact') counted.markCompacts += 1;
  }
  return counted;
}

/** Reports a start-up failure to the parent, then exits with an error once the message is sent. */
export function failStart(error: unknown): void {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (!process.send) {
    console.error(message);
    process.exit(1);
  }
  process.send({ type: 'failed', message } satisfies ChildMessage, () => process.exit(1));
}
