/**
 * Keeps a streamed tool loop's response alive while a step's gateway tools run: nothing else goes out then,
 * and a stream silent for long is taken for dead by clients and proxies (Node's fetch gives up on a body idle
 * for 5 minutes, this gateway on an upstream's after 2). Anthropic's streams may hold any number of `ping`
 * events, which every client skips.
 */
import type { SseEvent } from '#src/providers/provider-adapter.ts';

/** How often a `ping` goes out while the tools run, unless `SWITCHBOARD_TOOL_LOOP_PING_MS` says otherwise. */
export const DEFAULT_TOOL_LOOP_PING_MS = 15_000;

const PING: SseEvent = { type: 'ping' };

/**
 * Yields a `ping` every `everyMs` until `work` settles, then returns its value (or throws its failure). A
 * consumer that stops at a ping (the client left) still finds `work` finished when the generator is done, so
 * what it records (the step and its charge) is in place before the request's outcome is taken.
 */
export async function* pingsWhile<T>(work: Promise<T>, everyMs: number): AsyncGenerator<SseEvent, T> {
  // One derived promise, raced at every turn: a failure is then observed exactly once.
  const settled = work.then((value) => ({ value }));
  let done = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const tick = new Promise<null>((resolve) => {
        timer = setTimeout(resolve, everyMs, null);
      });
      const result = await Promise.race([settled, tick]);
      clearTimeout(timer);
      if (result) {
        done = true;
        return result.value;
      }
      yield PING;
    }
  } finally {
    if (!done) await settled.catch(() => undefined);
  }
}
