/** The model names the bench's processes agree on (a module of its own: the upstream child imports it). */

/** The model the bench asks the gateway for. */
export const BENCH_MODEL = 'anthropic/claude-sonnet-4.5';
/** A model whose streams trickle (one delta a second), for holding many streams open. */
export const BENCH_SLOW_MODEL = 'anthropic/claude-bench-slow';
/** The upstream model id that asks the fake upstream for a trickling stream. */
export const SLOW_MODEL = 'claude-bench-slow';
/** A model whose stream is written one event at a time, 1 ms apart, for the sequential streaming probe. */
export const BENCH_PACED_MODEL = 'anthropic/claude-bench-paced';
/** The upstream model id that asks the fake upstream for a paced stream. */
export const PACED_MODEL = 'claude-bench-paced';
