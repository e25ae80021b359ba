import { describe, expect, it } from 'vitest';
import { readSseEvents, SseEventSplitter, type UpstreamSseEvent } from '#src/providers/sse-reader.ts';
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

/** Pushes the pieces through one splitter and ends it; every event it gave, in order. */
function split(pieces: readonly (Uint8Array | string)[]): UpstreamSseEvent[] {
  const splitter = new SseEventSplitter();
  return [...pieces.flatMap((piece) => splitter.push(piece)), ...splitter.end()];
}

describe('SseEventSplitter', () => {
  // Each block as the upstream framed it; null where the block dispatches no event and is not forwarded.
  const blocks: [string, string | null][] = [
    [': a comment alone\n\n', null],
    ['event:message_start\r\ndata:{"type":"message_start"}\r\n\r\n', 'message_start'],
    ['data: {"type": "content_block_start"}\nid: 4\n: note\nevent: content_block_start\n\n', 'content_block_start'],
    ['event: ping\n\n', null],
    ['event: content_block_delta\ndata: {"text":"caf\u00e9 \ud83d\ude00 \u65e5\u672c"}  \n\n', 'content_block_delta'],
    ['event: x\ndata: {"a":\ndata: 1}\n\n', 'x'],
    ['data: {"unnamed":true}\n\n', 'message'],
    ['event: content_block_stop\rdata: {}\r\r', 'content_block_stop'],
    ['event:  spaced\ndata\n\n', ' spaced'],
    ['event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n', 'message_stop'],
  ];
  const wire = Buffer.from(blocks.map(([text]) => text).join(''), 'utf8');
  const expected = blocks.filter(([, name]) => name !== null).map(([text, name]) => ({ event: name, raw: text }));
  const seen = (events: UpstreamSseEvent[]) => events.map((event) => ({ event: event.event, raw: event.raw.toString('utf8') }));

  it('gives each event its name and its exact bytes, and drops blocks that dispatch nothing', () => {
    expect(seen(split([wire]))).toEqual(expected);
  });

  it.each([1, 2, 3, 7, 64])('gives the same bytes when they arrive %i at a time', (every) => {
    expect(seen(split(splitBytes(wire, { every })))).toEqual(expected);
  });

  it.each([1, 2, 3, 4, 5, 6])('gives the same bytes for random cuts (seed %i)', (seed) => {
    expect(seen(split(splitBytes(wire, { seed, maxChunkBytes: 9 })))).toEqual(expected);
  });

  it('gives the same bytes for every two-way cut', () => {
    for (const pieces of everyTwoWaySplit(wire)) expect(seen(split(pieces))).toEqual(expected);
  });

  it('reads the data only when asked, as an SSE client reads it', () => {
    const [multi] = split(['event: x\ndata: {"a":\r\ndata:1}\n\n']);
    expect(multi?.data).toBe('{"a":\n1}');
  });

  it('waits for the LF of a CRLF blank line cut from its CR, then hands the event over whole', () => {
    const splitter = new SseEventSplitter();
    expect(splitter.push('event: a\r\ndata: {}\r\n\r')).toEqual([]);
    const [first, second] = splitter.push('\nevent: b\r\ndata: {}\r\n\r\n');
    expect(first?.raw.toString()).toBe('event: a\r\ndata: {}\r\n\r\n');
    expect(second?.raw.toString()).toBe('event: b\r\ndata: {}\r\n\r\n');
  });

  it('hands over an event cut after the CR of its blank line when the stream ends there', () => {
    const splitter = new SseEventSplitter();
    expect(splitter.push('event: a\r\ndata: {}\r\n\r')).toEqual([]);
    expect(splitter.end().map((event) => event.raw.toString())).toEqual(['event: a\r\ndata: {}\r\n\r']);
  });

  it('does not wait on a stream framed with CR alone', () => {
    const splitter = new SseEventSplitter();
    expect(splitter.push('event: a\rdata: {}\r\r').map((event) => event.event)).toEqual(['a']);
  });

  it('drops a leading byte-order mark and an event the stream ends inside', () => {
    expect(seen(split(['\uFEFFevent: a\ndata: {}\n\nevent: b\ndata: {']))).toEqual([{ event: 'a', raw: 'event: a\ndata: {}\n\n' }]);
  });
});


describe('SseEventSplitter, events framed with LF read in one pass', () => {
  // Blocks after a first event (so none is the stream's first), each with the name and data a full parse gives.
  const blocks: [string, { event: string; data: string } | null][] = [
    ['event: message_start\ndata: {"a":1}\n\n', { event: 'message_start', data: '{"a":1}' }],
    ['event:message_delta\ndata:{"a":1}\n\n', { event: 'message_delta', data: '{"a":1}' }],
    ['event: content_block_stop\ndata: {}\n\n', { event: 'content_block_stop', data: '{}' }],
    ['event: message_sta\ndata: {}\n\n', { event: 'message_sta', data: '{}' }],
    ['event: message_start2\ndata: {}\n\n', { event: 'message_start2', data: '{}' }],
    ['event: content_block_stap\ndata: {}\n\n', { event: 'content_block_stap', data: '{}' }],
    ['event: pings\ndata: {}\n\n', { event: 'pings', data: '{}' }],
    ['event: caf\u00e9\ndata: {}\n\n', { event: 'caf\u00e9', data: '{}' }],
    ['event\ndata: x\n\n', { event: 'message', data: 'x' }],
    ['event:\ndata: x\n\n', { event: 'message', data: 'x' }],
    ['event: a\nevent: message_stop\ndata: x\n\n', { event: 'message_stop', data: 'x' }],
    ['data: x\nevent: ping\n\n', { event: 'ping', data: 'x' }],
    ['data\n\n', { event: 'message', data: '' }],
    ['data:\n\n', { event: 'message', data: '' }],
    ['data:  two spaces \n\n', { event: 'message', data: ' two spaces ' }],
    ['data: caf\u00e9 \ud83d\ude00\n\n', { event: 'message', data: 'caf\u00e9 \ud83d\ude00' }],
    [': comment\nid: 1\nretry: 5\ndata: x\n\n', { event: 'message', data: 'x' }],
    ['event: x\ndata: a\ndata: b\n\n', { event: 'x', data: 'a\nb' }],
    ['eventx: y\ndatax: y\ndata: z\n\n', { event: 'message', data: 'z' }],
    ['event: ping\n\n', null],
    // A block that starts as a byte-order mark would: the full parse drops the mark and reads both data lines.
    ['\uFEFFdata: a\ndata: b\n\n', { event: 'message', data: 'a\nb' }],
  ];
  const first = 'event: first\ndata: {}\n\n';

  it.each(blocks)('reads %j as the full parse does, whole or a byte at a time', (block, expected) => {
    const wire = Buffer.from(first + block, 'utf8');
    const whole = split([wire]);
    const bytewise = split(splitBytes(wire, { every: 1 }));
    const read = (events: UpstreamSseEvent[]) => events.map((event) => ({ event: event.event, data: event.data, raw: event.raw.toString('utf8') }));
    expect(read(whole)).toEqual(read(bytewise));
    expect(read(whole)).toEqual([{ event: 'first', data: '{}', raw: first }, ...(expected ? [{ ...expected, raw: block }] : [])]);
  });

  it('goes on in one pass after an event that began in an earlier chunk, and leaves one cut in its name line for the next', () => {
    const splitter = new SseEventSplitter();
    expect(splitter.push('event: message_start\ndata: {"a"')).toEqual([]);
    const events = splitter.push(':1}\n\nevent: ping\ndata: {}\n\nevent: message_st');
    expect(events.map((event) => [event.event, event.data])).toEqual([
      ['message_start', '{"a":1}'],
      ['ping', '{}'],
    ]);
    expect(splitter.push('op\ndata: {}\n\n').map((event) => [event.event, event.data, event.raw.toString()])).toEqual([['message_stop', '{}', 'event: message_stop\ndata: {}\n\n']]);
  });

  it('parses an event once for every reader that only looks, and hands that parse to the first that may change it', () => {
    const [event] = split(['event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m"}}\n\n']);
    const peeked = event!.peekPayload() as { message: { id: string; model: string } };
    expect(event!.peekPayload()).toBe(peeked);
    const taken = event!.takePayload() as { message: { model: string } };
    expect(taken).toBe(peeked);
    taken.message.model = 'changed';
    // The next reader does not see the change: a parse of its own.
    expect(event!.peekPayload()).toEqual({ type: 'message_start', message: { id: 'msg_1', model: 'm' } });
    expect(event!.takePayload()).not.toBe(event!.takePayload());
    const [broken] = split(['event: message_start\ndata: {"type":\n\n']);
    expect(() => broken!.peekPayload()).toThrow(SyntaxError);
    expect(() => broken!.takePayload()).toThrow(SyntaxError);
  });
});
