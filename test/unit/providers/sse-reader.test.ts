import { describe, expect, it } from 'vitest';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { encodeSseFrame, everyTwoWaySplit, readChunks, splitBytes } from '#test/helpers/fake-upstreams/index.ts';

async function* chunksOf(pieces: readonly (Uint8Array | string)[]): AsyncGenerator<Uint8Array | string> {
  for (const piece of pieces) yield piece;
}

async function read(pieces: readonly (Uint8Array | string)[]): Promise<RawSseEvent[]> {
  const events: RawSseEvent[] = [];
  for await (const event of readSseEvents(chunksOf(pieces))) events.push(event);
  return events;
}

const thinking = readChunks<{ type: string }>('anthropic', 'anthropic-clear-thinking.1');
const wire = Buffer.concat(thinking.map((payload) => encodeSseFrame({ event: payload.type, data: payload })));
const expected = thinking.map((payload) => ({ event: payload.type, data: JSON.stringify(payload) }));

describe('readSseEvents', () => {
  it('yields each event with its name and data text', async () => {
    expect(await read([wire])).toEqual(expected);
  });

  it.each([1, 2, 3, 5, 17, 64])('gives the same events when the bytes arrive %i at a time', async (every) => {
    expect(await read(splitBytes(wire, { every }))).toEqual(expected);
  });

  it.each([1, 2, 3, 4, 5])('gives the same events for random cuts (seed %i)', async (seed) => {
    expect(await read(splitBytes(wire, { seed, maxChunkBytes: 11 }))).toEqual(expected);
  });

  it('survives every two-way cut of an event with multi-byte characters', async () => {
    const frame = encodeSseFrame({ event: 'content_block_delta', data: { type: 'content_block_delta', delta: { text: '925 ÷ 5 = 185 ✓ 日本' } } });
    const whole = await read([frame]);
    expect(whole[0]?.data).toContain('925 ÷ 5 = 185 ✓ 日本');
    for (const pieces of everyTwoWaySplit(frame)) expect(await read(pieces)).toEqual(whole);
  });

  it.each([
    ['CRLF line endings', 'event: ping\r\ndata: {"type":"ping"}\r\n\r\n', [{ event: 'ping', data: '{"type":"ping"}' }]],
    ['CR line endings', 'event: ping\rdata: {"type":"ping"}\r\r', [{ event: 'ping', data: '{"type":"ping"}' }]],
    ['no space after the colon', 'event:ping\ndata:{"type":"ping"}\n\n', [{ event: 'ping', data: '{"type":"ping"}' }]],
    ['an unnamed event', 'data: {"a":1}\n\n', [{ event: 'message', data: '{"a":1}' }]],
    ['comments and ids', ': keep-alive\nid: 7\nevent: ping\ndata: {}\n\n', [{ event: 'ping', data: '{}' }]],
    ['multi-line data', 'event: x\ndata: {"a":\ndata: 1}\n\n', [{ event: 'x', data: '{"a":\n1}' }]],
    ['a leading byte-order mark', '\uFEFFevent: ping\ndata: {}\n\n', [{ event: 'ping', data: '{}' }]],
    ['an event with no data', 'event: ping\n\nevent: ping\ndata: {}\n\n', [{ event: 'ping', data: '{}' }]],
  ])('reads %s', async (_name, text, events) => {
    expect(await read([text])).toEqual(events);
  });

  it.each([
    ['a final event without its blank line', 'event: a\ndata: {}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n'],
    ['a final event cut inside its data line', 'event: a\ndata: {}\n\nevent: message_stop\ndata: {"type":"mess'],
  ])('drops %s, as the SSE rules require', async (_name, text) => {
    expect(await read([text])).toEqual([{ event: 'a', data: '{}' }]);
  });

  it('yields an event as soon as it is complete, before the stream ends', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* slow(): AsyncGenerator<string> {
      yield 'event: first\ndata: {}\n\n';
      await gate;
      yield 'event: second\ndata: {}\n\n';
    }
    const iterator = readSseEvents(slow());
    expect((await iterator.next()).value).toEqual({ event: 'first', data: '{}' });
    release();
    expect((await iterator.next()).value).toEqual({ event: 'second', data: '{}' });
    expect((await iterator.next()).done).toBe(true);
  });

  it('passes a failure of the body on to the reader', async () => {
    async function* broken(): AsyncGenerator<string> {
      yield 'event: a\ndata: {}\n\n';
      throw Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    }
    const events: RawSseEvent[] = [];
    await expect(
      (async () => {
        for await (const event of readSseEvents(broken())) events.push(event);
      })(),
    ).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(events).toEqual([{ event: 'a', data: '{}' }]);
  });
});
