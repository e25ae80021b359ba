/** The gateway's Node flags and environment: what is missing decides the re-exec; explicit settings are kept. */
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { gatewayEnvironmentDefaults, GATEWAY_NODE_FLAGS, missingRuntimeSettings } from '#src/serve/runtime-settings.ts';
import { compactHeap } from '#src/serve/compact-heap.ts';

describe('missingRuntimeSettings', () => {
  const defaults = gatewayEnvironmentDefaults();

  it.each([
    ['nothing set', [], {}, [...GATEWAY_NODE_FLAGS], defaults],
    ['flags given, environment not', [...GATEWAY_NODE_FLAGS, '--inspect'], {}, [], defaults],
    ['everything set', [...GATEWAY_NODE_FLAGS], { NODE_COMPILE_CACHE: '/var/cache/x', MALLOC_ARENA_MAX: '8', MALLOC_TRIM_THRESHOLD_: '1048576' }, [], {}],
    ['an operator value is kept', [], { MALLOC_ARENA_MAX: '8' }, [...GATEWAY_NODE_FLAGS], { NODE_COMPILE_CACHE: defaults.NODE_COMPILE_CACHE, MALLOC_TRIM_THRESHOLD_: defaults.MALLOC_TRIM_THRESHOLD_ }],
    ["an operator's own semi-space size is kept", ['--max-semi-space-size=64'], {}, ['--liftoff-only', '--no-memory-reducer'], defaults],
    ['a V8 flag spelled with underscores counts as given', ['--max_semi_space_size=64'], {}, ['--liftoff-only', '--no-memory-reducer'], defaults],
    ['a flag in NODE_OPTIONS counts as given', [], { NODE_OPTIONS: '--enable-source-maps  --max-semi-space-size=32' }, ['--liftoff-only', '--no-memory-reducer'], defaults],
  ])('%s', (_name, execArgv, env, flags, missingEnv) => {
    expect(missingRuntimeSettings(execArgv, env)).toEqual({ flags, env: missingEnv });
  });

  it('runs WebAssembly on the baseline compiler, caps the young generation, leaves lulls to the idle compaction, bounds malloc arenas and keeps malloc trimming its heap', () => {
    expect(GATEWAY_NODE_FLAGS).toEqual(['--liftoff-only', '--max-semi-space-size=16', '--no-memory-reducer']);
    expect(defaults.MALLOC_ARENA_MAX).toBe('2');
    expect(defaults.MALLOC_TRIM_THRESHOLD_).toBe('131072');
  });
});

describe('compactHeap', () => {
  it('gives the pages of freed garbage back', () => {
    let garbage: number[][] | undefined = Array.from({ length: 400 }, () => Array.from({ length: 20_000 }, (_unused, index) => index * 1.5));
    const grown = getHeapStatistics().total_heap_size;
    expect(garbage.length).toBe(400);
    garbage = undefined;
    expect(compactHeap()).toBe(true);
    // About 64 MB of doubles were allocated; most of the committed heap they needed is released.
    expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - 32 * 2 ** 20);
  });
});
