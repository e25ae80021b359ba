import { get, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, UpstreamError, type UpstreamFailureKind } from '#src/errors.ts';
import { createSseWriter } from '#src/http/sse-writer.ts';
import { streamToClient } from '#src/http/stream-to-client.ts';
import { createLogger } from '#src/logger.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import type { UpstreamBody } from '#src/providers/upstream-exchange.ts';
import { chunkedBody } from '#test/helpers/chunked-body.ts';
import { readChunks } from '#test/helpers/fake-upstreams/index.ts';
import { startSseTestServer, type SseTestServer } from './sse-test-server.ts';

let server: SseTestServer | undefined;
const failures: unknown[] = [];
let logLines: string[] = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  logLines = [];
  expect(failures.splice(0)).toEqual([]);
});

const upstreamEvents: RawSseEvent[] = readChunks<{ type: string }>('anthropic', 'anthropic-text').map((payload) => ({
  event: payload.type,
  data: JSON.stringify(payload),
}));

/** The socket writes of the response (`_write` for one chunk, `_writev` for the chunks corked in one tick), as text. */
function recordSocketWrites(socket: Socket): string[] {
  const watched = socket as Socket & { _write: Socket['_write']; _writev: NonNullable<Socket['_writev']> };
  const writes: string[] = [];
  const write = watched._write;
  const writev = watched._writev;
  watched._write = function (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    writes.push(String(chunk));
    write.call(this, chunk, encoding, callback);
  };
  watched._writev = function (chunks: { chunk: unknown; encoding: BufferEncoding }[], callback: (error?: Error | null) => void) {
    writes.push(chunks.map(({ chunk }) => String(chunk)).join(''));
    writev.call(this, chunks, callback);
  };
  return writes;
}

/** Serves `events` through streamToClient; resolves `done` when streamToClient has returned. */
async function serve(events: () => AsyncIterable<RawSseEvent>): Promise<{ url: string; done: Promise<void> }> {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const logger = createLogger({ level: 'debug', sink: (line) => logLines.push(line) });
  server = await startSseTestServer(async (_req, res) => {
    const writer = createSseWriter(res);
    writer.open({});
    await streamToClient(writer, events(), logger);
    finish();
  }, failures);
  return { url: server.url, done };
}

function request(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).on('error', reject));
}

async function receive(url: string): Promise<{ events: RawSseEvent[]; completed: boolean }> {
  const response = await request(url);
  const events: RawSseEvent[] = [];
  for await (const event of readSseEvents(response)) events.push(event);
  return { events, completed: response.complete };
}

const framed = (events: readonly RawSseEvent[]) => events.map(({ event, data }) => `event: ${event}\ndata: ${data}\n\n`).join('');

/** The passthrough's events of one upstream packet holding `events`, which streamToClient takes as they are ready. */
const packetOf = (events: readonly RawSseEvent[]) => () => new PassedEvents('anthropic', chunkedBody([framed(events)])) as AsyncIterable<RawSseEvent>;

async function* failingAfter(count: number, error: unknown): AsyncGenerator<RawSseEvent> {
  yield* upstreamEvents.slice(0, count);
  throw error;
}

describe('streamToClient', () => {
  it('writes every event in order and ends the response cleanly', async () => {
    const { url, done } = await serve(async function* () {
      yield* upstreamEvents;
    });
    const { events, completed } = await receive(url);
    expect(events).toEqual(upstreamEvents);
    expect(completed).toBe(true);
    await done;
  });

  it('ends the response with message_stop without waiting for the upstream to close, then reads the upstream to its end', async () => {
    expect(upstreamEvents.at(-1)?.event).toBe('message_stop');
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let drained = false;
    const { url, done } = await serve(async function* () {
      yield* upstreamEvents;
      // The upstream has sent its last event but not yet closed its side.
      await released;
      yield { event: 'ping', data: '{"type":"ping"}' };
      drained = true;
    });
    const { events, completed } = await receive(url);
    expect(events).toEqual(upstreamEvents);
    expect(completed).toBe(true);
    expect(drained).toBe(false);
    release();
    await done;
    // Read to its end rather than abandoned, so an upstream connection goes back to its pool.
    expect(drained).toBe(true);
  });

  it('does not turn a failure after message_stop into an error event', async () => {
    const { url, done } = await serve(async function* () {
      yield* upstreamEvents;
      throw upstream('connection');
    });
    const { events, completed } = await receive(url);
    expect(events).toEqual(upstreamEvents);
    expect(completed).toBe(true);
    await done;
    expect(logLines.some((line) => line.includes('stream failed after its first byte'))).toBe(false);
  });

  const upstream = (kind: UpstreamFailureKind) => new UpstreamError({ provider: 'anthropic', kind, rawBody: '{"secret":"upstream body"}' });
  it.each([
    ['a rate limit', upstream('rate_limited'), 'rate_limit_error', 'Upstream anthropic failed: rate limited'],
    ['an overload', upstream('overloaded'), 'overloaded_error', 'Upstream anthropic failed: overloaded'],
    ['a timeout', upstream('timeout'), 'timeout_error', 'Upstream anthropic failed: timeout'],
    ['a truncated stream', upstream('malformed_response'), 'api_error', 'Upstream anthropic failed: malformed response'],
    ['a reset', upstream('connection'), 'api_error', 'Upstream anthropic failed: connection'],
    ['a gateway error', new GatewayError(504, 'The request ran out of time'), 'timeout_error', 'The request ran out of time'],
    ['a bug', new TypeError('cannot read properties of undefined (secret internals)'), 'api_error', 'Internal Server Error'],
  ])('ends with an in-band error event after %s and closes the stream cleanly', async (_name, error, type, message) => {
    const { url, done } = await serve(() => failingAfter(3, error));
    const { events, completed } = await receive(url);

    expect(events.slice(0, 3)).toEqual(upstreamEvents.slice(0, 3));
    expect(events.slice(3)).toEqual([{ event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) }]);
    expect(completed).toBe(true);
    expect(events.at(-1)?.data).not.toContain('secret');
    await done;
    expect(logLines.some((line) => line.includes('stream failed after its first byte'))).toBe(true);
  });

  it('stops reading the upstream when the client goes away', async () => {
    let returned = false;
    let produced = 0;
    const { url, done } = await serve(async function* () {
      try {
        for (let index = 0; ; index += 1) {
          produced += 1;
          yield { event: 'content_block_delta', data: `{"index":${index},"pad":"${'z'.repeat(16 * 1024)}"}` };
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } finally {
        returned = true;
      }
    });
    const response = await request(url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    response.destroy();
    await done;
    expect(returned).toBe(true);
    const producedAtEnd = produced;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(produced).toBe(producedAtEnd);
  });

  it('never throws, even when the events fail before the first one', async () => {
    const { url, done } = await serve(() => failingAfter(0, upstream('overloaded')));
    const { events, completed } = await receive(url);
    expect(events).toEqual([{ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Upstream anthropic failed: overloaded' } }) }]);
    expect(completed).toBe(true);
    await done;
  });

  it('writes the events a source holds ready (one upstream packet) as it writes those it awaits', async () => {
    const { url, done } = await serve(packetOf(upstreamEvents));
    const { events, completed } = await receive(url);
    expect(events).toEqual(upstreamEvents);
    expect(completed).toBe(true);
    await done;
  });

  it('ends with the in-band error event when a ready event of the packet is an upstream error', async () => {
    const error = { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }) };
    const { url, done } = await serve(packetOf([...upstreamEvents.slice(0, 3), error, ...upstreamEvents.slice(3)]));
    const { events, completed } = await receive(url);
    expect(events.slice(0, 3)).toEqual(upstreamEvents.slice(0, 3));
    expect(events.slice(3)).toEqual([{ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Upstream anthropic failed: overloaded' } }) }]);
    expect(completed).toBe(true);
    await done;
  });

  /** A body whose chunks arrive one per turn of the event loop, as an upstream's packets do. */
  function pacedBodyOf(chunks: string[]): UpstreamBody {
    const queue = chunks.map((chunk) => Buffer.from(chunk));
    const body: UpstreamBody & AsyncIterator<Buffer> = {
      next: () => new Promise((resolve) => setImmediate(() => resolve(queue.length > 0 ? { done: false as const, value: queue.shift()! } : { done: true as const, value: undefined }))),
      [Symbol.asyncIterator]: () => body,
      discard: () => undefined,
      text: () => Promise.reject(new Error('not used')),
      json: () => Promise.reject(new Error('not used')),
    };
    return body;
  }

  it.each([
    ['in one packet', [framed(upstreamEvents)], 1],
    ['in three packets', [framed(upstreamEvents.slice(0, 2)), framed(upstreamEvents.slice(2, -1)), framed(upstreamEvents.slice(-1))], 3],
  ])('writes what arrives %s in one socket write per packet, the headers with the first, the end with message_stop', async (_name, chunks, count) => {
    let writes: string[] = [];
    const logger = createLogger({ level: 'debug', sink: (line) => logLines.push(line) });
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    server = await startSseTestServer(async (_req, res) => {
      writes = recordSocketWrites(res.socket as Socket);
      const writer = createSseWriter(res);
      writer.open({});
      await streamToClient(writer, new PassedEvents('anthropic', pacedBodyOf(chunks)) as AsyncIterable<RawSseEvent>, logger);
      finish();
    }, failures);
    const { events } = await receive(server.url);
    await done;
    expect(events).toEqual(upstreamEvents);
    expect(writes).toHaveLength(count);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(writes.at(-1)).toContain('event: message_stop');
  });
});
