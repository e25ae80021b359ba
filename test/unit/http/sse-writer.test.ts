import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
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

async function serve(handle: (writer: SseWriter) => Promise<void>): Promise<string> {
  server = await startSseTestServer(async (_req, res) => handle(createSseWriter(res)), failures);
  return server.url;
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
  it('sends status 200, the event-stream headers and the caller headers before any event', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const url = await serve(async (writer) => {
      writer.open({ 'X-Generation-Id': 'gen-1' });
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
    expect(await textOf(response)).toBe('');
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
      for (let index = 0; index < 64; index += 1) {
        await writer.write({ event: `e${index}`, data: big });
        writesDone += 1;
      }
      writer.end();
    });
    const response = await request(url);
    response.pause();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 4 MiB in all: without back-pressure every write would have returned by now.
    expect(writesDone).toBeLessThan(64);
    response.resume();
    const events = await eventsOf(response);
    expect(events.map((event) => event.event)).toEqual(Array.from({ length: 64 }, (_unused, index) => `e${index}`));
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
});
