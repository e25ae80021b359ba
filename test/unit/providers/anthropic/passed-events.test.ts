import { describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { chunkedBody } from '#test/helpers/chunked-body.ts';

const event = (name: string, data: object, lineEnd = '\n') => `event: ${name}${lineEnd}data: ${JSON.stringify(data)}${lineEnd}${lineEnd}`;
const START = event('message_start', { type: 'message_start' });
const PING = event('ping', { type: 'ping' });
const STOP = event('message_stop', { type: 'message_stop' });

async function names(events: PassedEvents): Promise<string[]> {
  const seen: string[] = [];
  for await (const passed of events) seen.push((passed as RawSseEvent).event);
  return seen;
}

describe('PassedEvents', () => {
  it("hands out a packet's events in order, reads on through partial chunks, and gives the body up at its end", async () => {
    const body = chunkedBody([START + PING.slice(0, 5), PING.slice(5), STOP]);
    expect(await names(new PassedEvents('anthropic', body))).toEqual(['message_start', 'ping', 'message_stop']);
    expect(body.discarded).toBe(1);
  });

  it('fails with malformed_response when the body ends before message_stop', async () => {
    await expect(names(new PassedEvents('anthropic', chunkedBody([START, PING])))).rejects.toMatchObject({ kind: 'malformed_response' });
  });

  it('fails with the vendor error of an error event, after the events before it, and gives the body up', async () => {
    const body = chunkedBody([START + event('error', { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }) + PING + STOP]);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const passed of new PassedEvents('anthropic', body)) seen.push((passed as RawSseEvent).event);
    })();
    await expect(reading).rejects.toBeInstanceOf(UpstreamError);
    await expect(reading).rejects.toMatchObject({ kind: 'overloaded' });
    expect(seen).toEqual(['message_start']);
    expect(body.discarded).toBe(1);
  });

  it('fails on an error event the end of a CRLF stream releases (its last LF never came)', async () => {
    const error = event('error', { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }, '\r\n');
    const body = chunkedBody([event('message_start', { type: 'message_start' }, '\r\n') + error.slice(0, -1)]);
    await expect(names(new PassedEvents('anthropic', body))).rejects.toMatchObject({ kind: 'overloaded' });
  });

  it.each([
    { case: 'in one packet', chunks: (a: string, b: string) => [a + b + PING + STOP] },
    { case: 'across packets', chunks: (a: string, b: string) => [a, b, PING + STOP] },
  ])('drops a repeated message_start of the same message ($case)', async ({ chunks }) => {
    const start = event('message_start', { type: 'message_start', message: { id: 'msg_dup' } });
    expect(await names(new PassedEvents('anthropic', chunkedBody(chunks(start, start))))).toEqual(['message_start', 'ping', 'message_stop']);
  });

  it('fails with malformed_response when another message starts inside the first, after its events', async () => {
    const first = event('message_start', { type: 'message_start', message: { id: 'msg_first' } });
    const second = event('message_start', { type: 'message_start', message: { id: 'msg_second' } });
    const body = chunkedBody([first + PING + second + STOP]);
    const seen: string[] = [];
    const reading = (async () => {
      for await (const passed of new PassedEvents('anthropic', body)) seen.push((passed as RawSseEvent).event);
    })();
    await expect(reading).rejects.toMatchObject({ kind: 'malformed_response', message: expect.stringContaining('"msg_second" inside message "msg_first"') });
    expect(seen).toEqual(['message_start', 'ping']);
    expect(body.discarded).toBe(1);
  });

  it('gives the body up when the reader stops early, and ends every later read', async () => {
    const body = chunkedBody([START + PING, STOP]);
    const events = new PassedEvents('anthropic', body);
    expect((await events.next()).done).toBe(false);
    await events.return();
    expect(body.discarded).toBe(1);
    expect((await events.next()).done).toBe(true);
  });

  it("hands out the rest of a read packet through nextReady, without a promise, and nothing before a chunk is read", async () => {
    const body = chunkedBody([START + PING, STOP]);
    const events = new PassedEvents('anthropic', body);
    expect(events.nextReady()).toBeUndefined();
    expect(((await events.next()).value as RawSseEvent).event).toBe('message_start');
    expect((events.nextReady() as RawSseEvent | undefined)?.event).toBe('ping');
    expect(events.nextReady()).toBeUndefined();
    expect(((await events.next()).value as RawSseEvent).event).toBe('message_stop');
    expect((await events.next()).done).toBe(true);
    expect(events.nextReady()).toBeUndefined();
    expect(body.discarded).toBe(1);
  });

  it('throws the vendor error of a ready error event from nextReady, and gives the body up', async () => {
    const body = chunkedBody([START + event('error', { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }) + STOP]);
    const events = new PassedEvents('anthropic', body);
    await events.next();
    expect(() => events.nextReady()).toThrow(expect.objectContaining({ kind: 'overloaded' }));
    expect(body.discarded).toBe(1);
    expect(events.nextReady()).toBeUndefined();
    expect((await events.next()).done).toBe(true);
  });
});
