import { describe, expect, it } from 'vitest';
import { startStream, streamEvents } from '#src/messages/attempt-answers.ts';
import { readyEventsOf } from '#src/providers/event-stages.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import type { RawSseEvent, SseEvent } from '#src/providers/provider-adapter.ts';
import { chunkedBody } from '#test/helpers/chunked-body.ts';
import type { Attempt } from '#src/routing/attempt.ts';

const attempt = { provider: { slug: 'anthropic' } } as Attempt;
const frame = (name: string) => `event: ${name}\ndata: {"type":"${name}"}\n\n`;

const nameOf = (event: SseEvent | undefined) => (event as RawSseEvent | undefined)?.event;

describe('streamEvents', () => {
  it("hands out the first event, then what the adapter holds ready, without a promise, then reads on", async () => {
    const started = await startStream(attempt, { events: new PassedEvents('anthropic', chunkedBody([frame('message_start') + frame('ping'), frame('message_stop')])), warnings: [] });
    const events = readyEventsOf(streamEvents(started));
    expect(events).toBeDefined();
    expect(nameOf(events?.nextReady())).toBe('message_start');
    expect(nameOf(events?.nextReady())).toBe('ping');
    expect(events?.nextReady()).toBeUndefined();
    expect(nameOf((await events?.next())?.value)).toBe('message_stop');
    expect((await events?.next())?.done).toBe(true);
  });

  it('over an adapter that holds nothing ready, hands out only the first event without a promise', async () => {
    async function* plain(): AsyncGenerator<SseEvent> {
      yield { event: 'message_start', data: '{}' };
      yield { event: 'message_stop', data: '{}' };
    }
    const events = readyEventsOf(streamEvents(await startStream(attempt, { events: plain(), warnings: [] })));
    expect(nameOf(events?.nextReady())).toBe('message_start');
    expect(events?.nextReady()).toBeUndefined();
    expect(nameOf((await events?.next())?.value)).toBe('message_stop');
    expect((await events?.next())?.done).toBe(true);
  });
});
