import { describe, expect, it } from 'vitest';
import { StageRun, StagedEvents, staged, withStages, type EventStage, type StreamEnd } from '#src/providers/event-stages.ts';
import type { RawSseEvent, SseEvent } from '#src/providers/provider-adapter.ts';

const ping = (data: string): RawSseEvent => ({ event: 'ping', data });

async function* source(count: number, failure?: Error): AsyncGenerator<SseEvent> {
  for (let index = 0; index < count; index += 1) yield ping(String(index));
  if (failure) throw failure;
}

/** A stage that tags each event's data with `name` and writes down what it heard. */
function tagging(name: string, heard: string[], options: { throwAt?: string; mapTo?: Error } = {}): EventStage {
  return {
    event(event) {
      const data = (event as RawSseEvent).data;
      if (data === options.throwAt) throw new Error(`${name} refused ${data}`);
      return ping(`${data}${name}`);
    },
    fail(error) {
      heard.push(`${name} fail ${(error as Error).message}`);
      return options.mapTo ?? error;
    },
    end(how: StreamEnd) {
      heard.push(`${name} end ${how.kind}${how.kind === 'failed' ? ` ${(how.error as Error).message}` : ''}`);
    },
  };
}

describe('staged', () => {
  it('keeps one list of stages however many are added, in order, over the first source', async () => {
    const events = source(2);
    const heard: string[] = [];
    const twice = staged(staged(events, tagging('a', heard)), tagging('b', heard));
    expect(twice).toBeInstanceOf(StagedEvents);
    expect(twice.source).toBe(events);
    expect(twice.stages).toHaveLength(2);
    const seen: string[] = [];
    for await (const event of twice) seen.push((event as RawSseEvent).data);
    expect(seen).toEqual(['0ab', '1ab']);
    expect(heard).toEqual(['a end complete', 'b end complete']);
  });
});

describe('StageRun', () => {
  it("passes a stage's error through the later stages' fail only, and every stage hears the end once", () => {
    const heard: string[] = [];
    const run = new StageRun([tagging('a', heard), tagging('b', heard, { throwAt: '0a' }), tagging('c', heard, { mapTo: new Error('mapped') })]);
    expect(() => run.pass(ping('0'))).toThrow('mapped');
    // The reader's catch hands the same error back: it is not passed through the stages again.
    expect((run.fail(new Error('mapped')) as Error).message).toBe('mapped');
    run.abandon();
    run.complete();
    expect(heard).toEqual(['c fail b refused 0a', 'a end failed mapped', 'b end failed mapped', 'c end failed mapped']);
  });

  it("passes a source's failure through every stage's fail", () => {
    const heard: string[] = [];
    const run = new StageRun([tagging('a', heard), tagging('b', heard)]);
    expect(run.pass(ping('0'))).toEqual(ping('0ab'));
    expect((run.fail(new Error('cut')) as Error).message).toBe('cut');
    expect(heard).toEqual(['a fail cut', 'b fail cut', 'a end failed cut', 'b end failed cut']);
  });
});

describe('withStages', () => {
  it('ends the stages as abandoned when the reader stops early', async () => {
    const heard: string[] = [];
    for await (const _event of withStages(source(3), [tagging('a', heard)])) break;
    expect(heard).toEqual(['a end abandoned']);
  });

  it('rethrows a failing source as the stages passed it on', async () => {
    const heard: string[] = [];
    const reading = (async () => {
      for await (const _event of withStages(source(1, new Error('cut')), [tagging('a', heard, { mapTo: new Error('mapped') })])) {
        // consume
      }
    })();
    await expect(reading).rejects.toThrow('mapped');
    expect(heard).toEqual(['a fail cut', 'a end failed mapped']);
  });
});

/** A source whose events are all ready at once (one upstream packet), as `nextReady` hands them out. */
function readySource(count: number): AsyncIterable<SseEvent> & { closed: number } {
  const events = Array.from({ length: count }, (_, index) => ping(String(index)));
  const source = {
    closed: 0,
    [Symbol.asyncIterator]() {
      return {
        nextReady: () => events.shift(),
        next: () => Promise.resolve(events.length > 0 ? { done: false as const, value: events.shift()! } : { done: true as const, value: undefined }),
        return: () => {
          source.closed += 1;
          return Promise.resolve({ done: true as const, value: undefined });
        },
      };
    },
  };
  return source;
}

describe('a StagedEvents iterator', () => {
  it('hands out what its source holds through the stages without a promise, then ends as complete', async () => {
    const heard: string[] = [];
    const iterator = staged(readySource(2), tagging('a', heard))[Symbol.asyncIterator]() as AsyncIterator<SseEvent> & { nextReady(): SseEvent | undefined };
    expect([iterator.nextReady(), iterator.nextReady(), iterator.nextReady()]).toEqual([ping('0a'), ping('1a'), undefined]);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(heard).toEqual(['a end complete']);
  });

  it("fails as withStages does when a stage throws on a ready event: the source closed, the stage's error thrown by next", async () => {
    const heard: string[] = [];
    const source = readySource(2);
    const iterator = staged(source, tagging('a', heard, { throwAt: '1' }))[Symbol.asyncIterator]() as AsyncIterator<SseEvent> & { nextReady(): SseEvent | undefined };
    expect(iterator.nextReady()).toEqual(ping('0a'));
    expect(iterator.nextReady()).toBeUndefined();
    await expect(iterator.next()).rejects.toThrow('a refused 1');
    expect(source.closed).toBe(1);
    expect(heard).toEqual(['a end failed a refused 1']);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('closes its source and ends the stages as abandoned when the reader stops early', async () => {
    const heard: string[] = [];
    const source = readySource(3);
    const iterator = staged(source, tagging('a', heard))[Symbol.asyncIterator]() as AsyncIterator<SseEvent> & { nextReady(): SseEvent | undefined };
    iterator.nextReady();
    await iterator.return?.();
    expect(source.closed).toBe(1);
    expect(heard).toEqual(['a end abandoned']);
  });
});
