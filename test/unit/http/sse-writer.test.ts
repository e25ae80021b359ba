import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createSseWriter, type SseWriter } from '#src/http/sse-writer.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { startSseTestServer, type SseTestServer } from './sse-test-server.ts';

let server: SseTestServer | undefined;
const failures: unknown[] = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  expect(failures.splice(0)).toEqual([]);
});

const responses = new WeakMap<SseWriter, Response>();

async function serve(handle: (writer: SseWriter) => Promise<void>): Promise<string> {
  server = await startSseTestServer(async (_req, res) => {
    const writer = createSseWriter(res);
    responses.set(writer, res);
    await handle(writer);
  }, failures);
  return server.url;
}

/**
 * What the writer's socket is asked to write, one entry per write the socket makes (`_write` for one chunk,
 * `_writev` for the chunks corked together in one tick): each is one system call and, on loopback, one packet.
 */
function recordSocketWrites(writer: SseWriter): string[] {
  const socket = responses.get(writer)?.socket as (Socket & { _write: Socket['_write']; _writev?: Socket['_writev'] }) | null | undefined;
  if (!socket?._writev) throw new Error('no socket to watch');
  const writes: string[] = [];
  const write = socket._write;
  const writev = socket._writev;
  socket._write = function (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    writes.push(String(chunk));
    write.call(this, chunk, encoding, callback);
  };
  socket._writev = function (chunks: { chunk: unknown; encoding: BufferEncoding }[], callback: (error?: Error | null) => void) {
    writes.push(chunks.map(({ chunk }) => String(chunk)).join(''));
    writev.call(this, chunks, callback);
  };
  return writes;
}

function request(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).on('error', reject));
}

async function textOf(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += (chunk as Buffer).toString('utf8');
  return text;
}

async function eventsOf(response: IncomingMessage): Promise<RawSseEvent[]> {
  const events: RawSseEvent[] = [];
  for await (const event of readSseEvents(response)) events.push(event);
  return events;
}

describe('createSseWriter', () => {
  it('sends status 200, the event-stream headers and the caller headers with the first event', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const url = await serve(async (writer) => {
      writer.open({ 'X-Generation-Id': 'gen-1' });
      await writer.write({ event: 'message_start', data: '{}' });
      await released;
      writer.end();
    });
    const response = await request(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      'x-generation-id': 'gen-1',
    });
    release();
    expect(await textOf(response)).toBe('event: message_start\ndata: {}\n\n');
  });

  it('sends the headers when the stream ends without any event', async () => {
    const url = await serve(async (writer) => {
      writer.open({ 'X-Generation-Id': 'gen-2' });
      writer.end();
    });
    const response = await request(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-generation-id']).toBe('gen-2');
    expect(await textOf(response)).toBe('');
  });

  it('puts the headers and the first event in one socket write, and the last event and the end of the body in one', async () => {
    let writes: string[] = [];
    const url = await serve(async (writer) => {
      writes = recordSocketWrites(writer);
      writer.open({});
      await writer.write({ event: 'message_start', data: '{"type":"message_start"}' });
      // Each event arrives on its own turn of the event loop, as events from an upstream do.
      await new Promise((resolve) => setImmediate(resolve));
      await writer.write({ event: 'content_block_delta', data: '{"type":"content_block_delta"}' });
      await new Promise((resolve) => setImmediate(resolve));
      writer.end({ event: 'message_stop', data: '{"type":"message_stop"}' });
    });
    expect(await textOf(await request(url))).toContain('event: message_stop');
    expect(writes).toHaveLength(3);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n[0-9a-f]+\r\nevent: message_start\n/);
    expect(writes[1]).toMatch(/^[0-9a-f]+\r\nevent: content_block_delta\n[\s\S]*\r\n$/);
    expect(writes[2]).toMatch(/^[0-9a-f]+\r\nevent: message_stop\n[\s\S]*\r\n0\r\n\r\n$/);
  });

  it('frames each event as event:, data: and a blank line, then ends', async () => {
    const url = await serve(async (writer) => {
      writer.open({});
      await writer.write({ event: 'message_start', data: '{"type":"message_start"}' });
      await writer.write({ event: 'ping', data: '{"type":"ping"}' });
      writer.end();
    });
    expect(await textOf(await request(url))).toBe('event: message_start\ndata: {"type":"message_start"}\n\nevent: ping\ndata: {"type":"ping"}\n\n');
  });

  it('serialises a typed event once, named by its type, next to upstream text sent as it came', async () => {
    const url = await serve(async (writer) => {
      writer.open({});
      await writer.write({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'line one\nline "two"' } });
      await writer.write({ event: 'ping', data: '{"type": "ping"}' });
      await writer.write({ type: 'message_stop' });
      writer.end();
    });
    expect(await textOf(await request(url))).toBe(
      [
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"line one\\nline \\"two\\""}}\n\n',
        'event: ping\ndata: {"type": "ping"}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ].join(''),
    );
  });

  it('keeps data that spans several lines in one event', async () => {
    const event = { event: 'message_delta', data: '{\n  "type": "message_delta"\n}' };
    const url = await serve(async (writer) => {
      writer.open({});
      await writer.write(event);
      await writer.write({ event: 'crlf', data: 'a\r\nb\rc' });
      writer.end();
    });
    expect(await eventsOf(await request(url))).toEqual([event, { event: 'crlf', data: 'a\nb\nc' }]);
  });

  it('waits for a slow reader instead of buffering without bound, and loses nothing', async () => {
    const big = `{"text":"${'x'.repeat(64 * 1024)}"}`;
    let writesDone = 0;
    const url = await serve(async (writer) => {
      writer.open({});
      for (let index = 0; index < 256; index += 1) {
        await writer.write({ event: `e${index}`, data: big });
        writesDone += 1;
      }
      writer.end();
    });
    const response = await request(url);
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 16 MiB in all, more than loopback socket buffers hold: without back-pressure every write would have returned.
    expect(writesDone).toBeLessThan(256);
    response.resume();
    const events = await eventsOf(response);
    expect(events.map((event) => event.event)).toEqual(Array.from({ length: 256 }, (_unused, index) => `e${index}`));
    expect(events.every((event) => event.data === big)).toBe(true);
  });

  it('notices a client that went away and stops waiting for it', async () => {
    let writer: SseWriter | undefined;
    let finished = false;
    const url = await serve(async (created) => {
      writer = created;
      created.open({});
      for (let index = 0; index < 1_000 && !created.closed; index += 1) {
        await created.write({ event: 'chunk', data: `"${'y'.repeat(64 * 1024)}"` });
      }
      created.end();
      finished = true;
    });
    const response = await request(url);
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 50));
    response.destroy();
    await once(response, 'close');
    await expect.poll(() => finished, { timeout: 2_000 }).toBe(true);
    expect(writer?.closed).toBe(true);
  });

  it('holds what is written until release, then sends it at the end of that turn in one socket write', async () => {
    let writes: string[] = [];
    let heldAfterATurn = -1;
    const url = await serve(async (writer) => {
      writes = recordSocketWrites(writer);
      writer.open({});
      writer.hold();
      await writer.write({ event: 'message_start', data: '{"type":"message_start"}' });
      await writer.write({ event: 'content_block_delta', data: '{"type":"content_block_delta"}' });
      await new Promise((resolve) => setImmediate(resolve));
      heldAfterATurn = writes.length;
      writer.release();
      await writer.write({ event: 'ping', data: '{"type":"ping"}' });
      await new Promise((resolve) => setImmediate(resolve));
      writer.end({ event: 'message_stop', data: '{"type":"message_stop"}' });
    });
    expect(await textOf(await request(url))).toContain('event: message_stop');
    expect(heldAfterATurn).toBe(0);
    expect(writes).toHaveLength(2);
    expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n[0-9a-f]+\r\nevent: message_start\n[\s\S]*event: content_block_delta\n[\s\S]*event: ping\n[\s\S]*\r\n$/);
    expect(writes[1]).toMatch(/^[0-9a-f]+\r\nevent: message_stop\n[\s\S]*\r\n0\r\n\r\n$/);
  });

  it('sends what it holds with the end, in one socket write with the headers, and nothing at the end of the turn', async () => {
    let writes: string[] = [];
    const url = await serve(async (writer) => {
      writes = recordSocketWrites(writer);
      writer.open({});
      writer.hold();
      await writer.write({ event: 'message_start', data: '{"type":"message_start"}' });
      writer.end({ event: 'message_stop', data: '{"type":"message_stop"}' });
      writer.release();
      await new Promise((resolve) => setImmediate(resolve));
    });
    const response = await request(url);
    expect(response.headers['content-length']).toBeDefined();
    expect(await textOf(response)).toBe('event: message_start\ndata: {"type":"message_start"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(writes).toHaveLength(1);
  });
});
