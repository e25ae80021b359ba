/**
 * A suite's shared setup as a handle: `useSuiteSetup` registers the hooks that start it once before the
 * suite's tests, stop it after them and (optionally) reset it before each, and returns a stand-in that reads
 * the running setup's properties. Suites then write `const setup = useSuiteSetup(...)` at module level, with
 * no `let` variables assigned in a `beforeAll`.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** How to start, stop and reset one suite's setup. */
export interface SuiteSetupHooks<T extends object> {
  start(): Promise<T>;
  stop(setup: T): Promise<void>;
  /** Runs before each test: forget what the previous one left (recorded requests, unused replies). */
  reset?(setup: T): void;
  /** How long `start` may take; the configured hook timeout when not given. */
  timeoutMs?: number;
}

/**
 * Registers the hooks and returns the stand-in. Reading it outside a hook or a test (before the setup started)
 * throws, naming what was read, rather than handing back `undefined`.
 */
export function useSuiteSetup<T extends object>(hooks: SuiteSetupHooks<T>): T {
  let started: T | undefined;
  const current = (key: PropertyKey): T => {
    if (started === undefined) throw new Error(`suite setup read (${String(key)}) before it started: read it inside a hook or a test`);
    return started;
  };
  beforeAll(async () => {
    started = await hooks.start();
  }, hooks.timeoutMs);
  afterAll(async () => {
    if (started !== undefined) await hooks.stop(started);
  });
  const reset = hooks.reset;
  if (reset) beforeEach(() => reset(current('reset')));
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(current(key), key),
    has: (_target, key) => Reflect.has(current(key), key),
  });
}
