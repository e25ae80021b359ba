import { defineConfig } from 'vitest/config';

/** Vitest configuration: the suite lives under test/, PGlite start-up needs generous timeouts. */
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
