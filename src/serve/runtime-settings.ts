/**
 * The Node flags and environment a gateway process runs with, and how `switchboard serve` gets them: a
 * process started without them (`npm start`, `node src/cli.ts serve`, the `switchboard` bin) replaces itself
 * with one that has them (`process.execve`: same pid, same signals, no parent left behind). Cluster workers
 * inherit them. Nothing depends on them for correctness: tests start servers in-process without them. Each
 * one was measured (bench/JOURNAL.md):
 *
 * - `--liftoff-only` keeps WebAssembly on V8's baseline compiler. The embedded PostgreSQL (PGlite) is 9 MB of
 *   WebAssembly whose hot functions V8 otherwise recompiles with its optimizing tier: over 60 MB of code, and
 *   above 500 MB of RSS while compiling, for queries the gateway mostly answers from its own caches.
 * - `--max-semi-space-size=16` caps each of V8's two young-generation semi-spaces at 16 MB. On a machine with a
 *   few GB of memory or more V8 lets them grow to 64 MB, and RSS under load follows the largest young generation
 *   so far (V8 keeps freed pages pooled until a memory-reducing collection, which load never lets run): with the
 *   cap, RSS under JSON and stream load at 64 connections was 50-65 MB lower at the same CPU per request (two
 *   A/B runs, 2026-11-26: 83.0 against 86.6 and 88.2 against 86.4 µs; 8 MB held no less).
 * - `--no-memory-reducer` turns off V8's memory reducer, which runs memory-reducing collections about 8 s after
 *   allocation stops. Such a collection also discards optimised code whose objects' shapes have no live instance
 *   left, so the first 1,000 requests after a lull of 10 s recompiled 94-108 functions (2-21 otherwise) at up
 *   to 2.6× the CPU per request (`--trace-opt`, 2026-11-26). The heap a burst grew is given back instead by the
 *   gateway's own idle compaction after a minute of quiet (src/serve/compact-heap.ts): after a second burst,
 *   RSS 227 MB for 60 s and then 174 MB, against 169 MB after 10 s with the reducer. Soaks do not tell the two
 *   apart: three ten-minute soaks without it, +0.2%, +14.6% and +11.4% (V8's pages following transient peaks
 *   of the heap), against −6% to +21% over four soaks with it.
 * - `NODE_COMPILE_CACHE` lets Node keep the TypeScript-stripped and compiled form of the sources on disk: a
 *   warm start loads neither the type stripper (a WebAssembly module and a 3.8 MB bundle) nor parses twice.
 * - `MALLOC_ARENA_MAX=2` (glibc) bounds the per-thread malloc arenas whose free space is never returned.
 * - `MALLOC_TRIM_THRESHOLD_=131072` (glibc) keeps malloc returning free memory at the top of its heap beyond
 *   128 kB, glibc's initial value. Left unset, glibc raises that threshold to twice the largest block it has
 *   freed back to the system: PGlite's start reads 9 MB of WebAssembly, after which up to 18 MB of free heap
 *   stayed resident for good (about 5 MB on an idle gateway).
 *
 * An explicitly set variable is kept as it is; `SWITCHBOARD_NODE_FLAGS=off` skips the re-exec entirely.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `--no-memory-reducer` was left out once (2026-11-26, afternoon): with young-generation semi-spaces of 64 MB a
// soak's RSS rose 25% without the reducer. With `--max-semi-space-size=16` soaks without it stay in the range of
// those with it (above).
/** Flags of every gateway process. */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--liftoff-only', '--max-semi-space-size=16', '--no-memory-reducer'];

/** Environment of every gateway process, where the operator has not set the variable. */
export function gatewayEnvironmentDefaults(): Record<string, string> {
  return { NODE_COMPILE_CACHE: join(tmpdir(), 'node-compile-cache'), MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' };
}

/** A flag's name: `--max-semi-space-size` of `--max-semi-space-size=16`, and of `--max_semi_space_size=16` (V8 reads both). */
function flagName(flag: string): string {
  const equals = flag.indexOf('=');
  return (equals < 0 ? flag : flag.slice(0, equals)).replaceAll('_', '-');
}

/**
 * The flags missing from `execArgv` and `NODE_OPTIONS`, and the environment variables missing from `env`. A
 * flag the operator set with a value of their own is not missing: their value is kept.
 */
export function missingRuntimeSettings(execArgv: readonly string[], env: NodeJS.ProcessEnv): { flags: string[]; env: Record<string, string> } {
  const missingEnv = Object.fromEntries(Object.entries(gatewayEnvironmentDefaults()).filter(([name]) => env[name] === undefined));
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS?.split(/\s+/) ?? [])].map(flagName));
  return { flags: GATEWAY_NODE_FLAGS.filter((flag) => !given.has(flagName(flag))), env: missingEnv };
}

/**
 * Re-executes this process with the gateway's flags and environment when something is missing and the
 * platform can (`process.execve`, Unix); otherwise returns and the gateway runs as it was started.
 */
export function ensureRuntimeSettings(env: NodeJS.ProcessEnv = process.env): void {
  if (env.SWITCHBOARD_NODE_FLAGS === 'off' || typeof process.execve !== 'function') return;
  const missing = missingRuntimeSettings(process.execArgv, env);
  if (missing.flags.length === 0 && Object.keys(missing.env).length === 0) return;
  process.execve(process.execPath, [process.execPath, ...missing.flags, ...process.execArgv, ...process.argv.slice(1)], { ...env, ...missing.env });
}
