import { describe, expect, it } from 'vitest';
import { spliceRefusalFallbacks, type StreamRefusal } from '#src/messages/refusal-fallback-stream.ts';
import type { RawSseEvent, SseEvent } from '#src/providers/provider-adapter.ts';

const raw = (type: string, data: object): RawSseEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });

/** A stream whose events are all ready at once (one upstream packet). */
function packet(events: SseEvent[]): AsyncIterable<SseEvent> {
  return {
    [Symbol.asyncIterator]() {
      return {
        nextReady: () => events.shift(),
        next: () => Promise.resolve(events.length > 0 ? { done: false as const, value: events.shift()! } : { done: true as const, value: undefined }),
      };
    },
  };
}

const START = raw('message_start', { message: { usage: { input_tokens: 5 } } });
const blocks = (count: number) => Array.from({ length: count }, (_, index) => [raw('content_block_start', { index, content_block: { type: 'text', text: '' } }), raw('content_block_stop', { index })]).flat();

type ReadyIterator = AsyncIterator<SseEvent> & { nextReady(): SseEvent | undefined };

async function readAll(iterator: ReadyIterator): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (;;) {
    const ready = iterator.nextReady();
    if (ready) {
      seen.push(ready);
      continue;
    }
    const next = await iterator.next();
    if (next.done) return seen;
    seen.push(next.value);
  }
}

describe('spliceRefusalFallbacks', () => {
  it('hands out a stream that refuses nothing as the events that came, every one ready without a promise', async () => {
    const events = [START, ...blocks(2), raw('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }), raw('message_stop', {})];
    const iterator = spliceRefusalFallbacks(packet([...events]), 'a/first', () => Promise.resolve(null)) as unknown as ReadyIterator;
    const ready: SseEvent[] = [];
    for (let event = iterator.nextReady(); event; event = iterator.nextReady()) ready.push(event);
    expect(ready).toEqual(events);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('numbers the fallback block after every block the refused model started, read only at the refusal', async () => {
    const refusals: StreamRefusal[] = [];
    const first = [START, ...blocks(3), raw('message_delta', { delta: { stop_reason: 'refusal' }, usage: { output_tokens: 2 } }), raw('message_stop', {})];
    const next = [START, ...blocks(1), raw('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }), raw('message_stop', {})];
    const startNext = (refused: StreamRefusal) => {
      refusals.push(refused);
      return Promise.resolve({ model: 'b/next', events: packet(next) });
    };
    const seen = await readAll(spliceRefusalFallbacks(packet(first), 'a/first', startNext) as unknown as ReadyIterator);
    const indexed = seen.filter((event) => !('data' in event) && event.type.startsWith('content_block')).map((event) => [(event as { type: string }).type, (event as { index: number }).index]);
    // The fallback block takes index 3, the next model's one block 4.
    expect(indexed).toEqual([
      ['content_block_start', 3],
      ['content_block_stop', 3],
      ['content_block_start', 4],
      ['content_block_stop', 4],
    ]);
    expect(refusals).toEqual([{ model: 'a/first', usage: { output_tokens: 2, input_tokens: 5 }, category: null, outputBegan: true, blockedBeforeModel: false }]);
    expect(seen.at(-1)).toEqual(raw('message_stop', {}));
  });
});
