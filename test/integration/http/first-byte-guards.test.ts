/**
 * Regression guards for a stream's first byte, counted rather than timed: once the upstream's first packet
 * (its status, headers and `message_start`) is in, the gateway hands the client its status line, headers and
 * first event in the same turn of the event loop, without waiting for a timer, an immediate, a store write or
 * the upstream's next packet. Anything that waits there shows as a delay of every stream's first byte at one
 * connection (issue 12's probe, bench/stream-timeline.ts), while the later events would not show it. The
 * same holds on the way in: once the client's request is whole, the gateway writes the upstream request in that
 * turn (authentication, planning and the key answered from memory), so work added there shows as CPU, and
 * a wait added there (a store read, a timer, an immediate) fails the guard below.
 */
import { createHook } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { OutgoingMessage, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MODEL = 'anthropic/claude-sonnet-4.5';
const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const FRAMES = [
  frame('message_start', {
    message: { id: 'msg_first_byte', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } },
  }),
  frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
  frame('content_block_stop', { index: 0 }),
  frame('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }),
  frame('message_stop', {}),
];

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;
const cleanups: (() => void)[] = [];

type WriteRaw = (this: OutgoingMessage, ...args: unknown[]) => boolean;

/**
 * Watches the gateway's next stream: whether an immediate queued when the upstream's first body chunk reached
 * the gateway had run by the time the gateway's answer first wrote to its socket (a turn of the event loop
 * passed in between), and what that first write held.
 */
function watchFirstWrite(): { turnPassed: boolean | undefined; firstWrite: string | undefined } {
  const seen: { turnPassed: boolean | undefined; firstWrite: string | undefined } = { turnPassed: undefined, firstWrite: undefined };
  let chunkArrived = false;
  let turnPassed = false;
  let collecting = false;
  const onChunk = (message: unknown) => {
    const { request } = message as { request: { origin?: unknown } };
    if (chunkArrived || String(request.origin) !== new URL(upstream.url).origin) return;
    chunkArrived = true;
    setImmediate(() => {
      turnPassed = true;
    });
  };
  subscribe('undici:request:bodyChunkReceived', onChunk);
  const prototype = OutgoingMessage.prototype as unknown as { _writeRaw: WriteRaw };
  const writeRaw = prototype._writeRaw;
  const gatewayPort = Number(new URL(gateway.baseUrl).port);
  prototype._writeRaw = function (this: OutgoingMessage, ...args: unknown[]): boolean {
    if (chunkArrived && this.socket?.localPort === gatewayPort && (seen.firstWrite === undefined || collecting)) {
      // The pieces of one `write` (the head, a chunk's size, the bytes, its CRLF), which the socket sends together.
      if (seen.firstWrite === undefined) {
        seen.turnPassed = turnPassed;
        seen.firstWrite = '';
        collecting = true;
        queueMicrotask(() => {
          collecting = false;
        });
      }
      const data = args[0] as string | Uint8Array;
      seen.firstWrite += typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    }
    return writeRaw.apply(this, args);
  };
  cleanups.push(() => {
    prototype._writeRaw = writeRaw;
    unsubscribe('undici:request:bodyChunkReceived', onChunk);
  });
  return seen;
}

type WriteGeneric = (this: Socket, ...args: unknown[]) => unknown;

/**
 * Watches the gateway's next stream: how many `process.nextTick` callbacks were queued in the gateway's process
 * between the upstream's first body chunk reaching it and the answer's first bytes reaching the gateway's
 * socket. The SSE writer queues one (its batch leaves at the end of the turn); a chunked `res.write` on an
 * uncorked socket would queue one more (Node corks the socket and uncorks it a tick later), which the writer
 * avoids by corking the socket around its write itself.
 */
function watchTicksToFirstSocketWrite(): { ticks: number | undefined } {
  const seen: { ticks: number | undefined } = { ticks: undefined };
  let counting = false;
  let ticks = 0;
  const hook = createHook({
    init(_id, type) {
      if (counting && type === 'TickObject') ticks += 1;
    },
  }).enable();
  const onChunk = (message: unknown) => {
    const { request } = message as { request: { origin?: unknown } };
    if (seen.ticks !== undefined || counting || String(request.origin) !== new URL(upstream.url).origin) return;
    counting = true;
  };
  subscribe('undici:request:bodyChunkReceived', onChunk);
  const prototype = Socket.prototype as unknown as { _writeGeneric: WriteGeneric };
  const writeGeneric = prototype._writeGeneric;
  const gatewayPort = Number(new URL(gateway.baseUrl).port);
  prototype._writeGeneric = function (this: Socket, ...args: unknown[]): unknown {
    if (counting && this.localPort === gatewayPort) {
      counting = false;
      seen.ticks = ticks;
    }
    return writeGeneric.apply(this, args);
  };
  cleanups.push(() => {
    prototype._writeGeneric = writeGeneric;
    unsubscribe('undici:request:bodyChunkReceived', onChunk);
    hook.disable();
  });
  return seen;
}

/**
 * Watches the gateway's next request on the way in: whether a turn of the event loop passed between the client's
 * request body having fully arrived at the gateway and the gateway writing the upstream request's headers. One
 * check phase is allowed: undici (8.12) writes a request on a reused keep-alive connection only after an
 * immediate of its own (its idle-socket validation: bytes or a FIN already pending on that socket are read
 * first), as it does for the pass-through floor. So the mark is an immediate queued from an immediate: it runs
 * a check phase later than undici's, unless the gateway waited for anything else (I/O, a timer, an immediate).
 */
function watchUpstreamWrite(): { turnPassed: boolean | undefined } {
  const seen: { turnPassed: boolean | undefined } = { turnPassed: undefined };
  let bodyArrived = false;
  let turnPassed = false;
  const gatewayPort = Number(new URL(gateway.baseUrl).port);
  const onRequest = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.socket.localPort !== gatewayPort || request.method !== 'POST') return;
    // Published before the server's 'request' event: this listener runs before the gateway's own.
    request.on('end', () => {
      bodyArrived = true;
      setImmediate(() => {
        setImmediate(() => {
          turnPassed = true;
        });
      });
    });
  };
  const onSendHeaders = (message: unknown) => {
    const { request } = message as { request: { origin?: unknown } };
    if (!bodyArrived || seen.turnPassed !== undefined || String(request.origin) !== new URL(upstream.url).origin) return;
    seen.turnPassed = turnPassed;
  };
  subscribe('http.server.request.start', onRequest);
  subscribe('undici:client:sendHeaders', onSendHeaders);
  cleanups.push(() => {
    unsubscribe('http.server.request.start', onRequest);
    unsubscribe('undici:client:sendHeaders', onSendHeaders);
  });
  return seen;
}

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-first-byte-0001" }\n` });
  client = new Anthropic({ apiKey: gateway.api_key, baseURL: `${gateway.origin}/api`, maxRetries: 0, timeout: 10_000 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

describe("a stream's first byte", () => {
  it('reaches the client while the upstream has sent nothing after its message_start', async () => {
    upstream.enqueue(reply.sse(FRAMES, { stallAfterEvents: 1 }));
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
    const events = stream[Symbol.asyncIterator]();
    const first = await events.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({ type: 'message_start', message: { id: 'msg_first_byte', model: MODEL } });
    stream.abort();
  });

  it('leaves, with the status line and headers, in the turn the upstream packet came in', async () => {
    // Warm: the first request compiles and caches what later ones reuse.
    upstream.enqueue(reply.sse(FRAMES));
    await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
    for (let index = 0; index < 3; index += 1) {
      const seen = watchFirstWrite();
      // The rest of the stream waits: only the first packet can be what the first write answers.
      upstream.enqueue(reply.sse(FRAMES, { chunkDelayMs: 20 }));
      const message = await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
      expect(seen.turnPassed).toBe(false);
      expect(seen.firstWrite).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(seen.firstWrite).toContain('event: message_start\n');
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    }
  });

  it('reaches the socket without a tick of its own after the writer releases its batch', async () => {
    upstream.enqueue(reply.sse(FRAMES));
    await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
    for (let index = 0; index < 3; index += 1) {
      const seen = watchTicksToFirstSocketWrite();
      upstream.enqueue(reply.sse(FRAMES, { chunkDelayMs: 20 }));
      const message = await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
      expect(seen.ticks).toBe(1);
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    }
  });
});

describe('the upstream request', () => {
  it('is written in the turn the client request arrived whole, for a stream and for a JSON answer', async () => {
    // Warm: the first request reads the key, the account's credentials and the catalog's views from the store.
    upstream.enqueue(reply.sse(FRAMES));
    await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
    for (const stream of [true, false, true]) {
      const seen = watchUpstreamWrite();
      if (stream) {
        upstream.enqueue(reply.sse(FRAMES));
        const message = await client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }).finalMessage();
        expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
      } else {
        const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
        expect(message.model).toBe(MODEL);
      }
      expect(seen.turnPassed).toBe(false);
      for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    }
  });
});
