/**
 * An upstream body for unit tests of the stream path: it hands out `chunks` one read at a time, as the
 * upstream exchange does with the packets it receives, and counts the calls to `discard` (which drops the rest).
 */
import type { UpstreamBody } from '#src/providers/upstream-exchange.ts';

/** A body that hands out `chunks` one read at a time. */
export function chunkedBody(chunks: string[]): UpstreamBody & AsyncIterator<Buffer> & { discarded: number } {
  const queue = chunks.map((chunk) => Buffer.from(chunk));
  const body = {
    discarded: 0,
    next: () => Promise.resolve(queue.length > 0 ? { done: false as const, value: queue.shift()! } : { done: true as const, value: undefined }),
    [Symbol.asyncIterator]: () => body,
    discard() {
      body.discarded += 1;
      queue.length = 0;
    },
    text: () => Promise.reject(new Error('not used')),
    json: () => Promise.reject(new Error('not used')),
  };
  return body;
}
