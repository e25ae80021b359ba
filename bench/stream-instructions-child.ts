/**
 * The measured side of bench/stream-instructions.ts, run under valgrind: the bench's streamed answer
 * (bench/bench-stream.ts, one upstream packet) through the gateway's stream path in one process, as
 * `POST /messages` runs it for an Anthropic-format upstream: the passthrough's events (src/providers/anthropic/
 * passed-events.ts), the started stream, the gateway's additions, the shutdown guard and the observer's
 * stage, and streamToClient with the SSE writer. The writer writes to a minimal response object, so node's
 * HTTP layer and the upstream exchange are not counted, nor is the record the observer's outcome becomes
 * (the sink only counts outcomes). The packet reaches the passthrough a turn after it is asked for, as a
 * socket read would. With `paced`, each event is a chunk of its own, a turn after the one before, so each
 * leaves in a write of its own (as the probe's paced upstream makes the gateway write); with `http`, the writer
 * writes to a real `node:http` response on a loopback connection whose client (in this process, counted too)
 * reads every answer whole, so Node's head, chunked framing and socket writes are in the count. It tells its
 * parent when a round is about to start and how many streams it ran.
 */
import { EventEmitter } from 'node:events';
import { Agent, createServer, request as httpRequest, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'express';
import { streamToClient } from '#src/http/stream-to-client.ts';
import { createSseWriter } from '#src/http/sse-writer.ts';
import { DrainTracker } from '#src/lifecycle/drain-tracker.ts';
import { createLogger } from '#src/logger.ts';
import { startStream, streamEvents as startedEvents } from '#src/messages/attempt-answers.ts';
import { amendStream } from '#src/messages/gateway-additions.ts';
import { spliceRefusalFallbacks } from '#src/messages/refusal-fallback-stream.ts';
import { staged, type EventStage } from '#src/providers/event-stages.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { GenerationObserver } from '#src/observability/generation-observer.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import type { UpstreamBody } from '#src/providers/upstream-exchange.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { streamEvents } from './bench-stream.ts';

/** What one child run measures. */
export interface ChildOptions {
  streams: number;
  warmup: number;
  rounds: number;
  /** Each event its own chunk, a turn after the one before (as a paced upstream's arrive), not one packet. */
  paced: boolean;
  /** The writer writes to a real `node:http` response on a loopback connection, read by a client in this process. */
  http: boolean;
}

const PACKET = Buffer.from(streamEvents('claude-sonnet-4-5').join(''));
const PACED = streamEvents('claude-sonnet-4-5').map((event) => Buffer.from(event));
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** An upstream body that hands out its chunks (the packet, or the paced events) a turn apart, then its end. */
class PacketBody implements UpstreamBody, AsyncIterator<Buffer> {
  readonly #chunks: readonly Buffer[];
  #next = 0;
  constructor(chunks: readonly Buffer[]) {
    this.#chunks = chunks;
  }
  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this;
  }
  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.#chunks[this.#next];
    if (chunk === undefined) return Promise.resolve(DONE);
    this.#next += 1;
    return new Promise((resolve) => setImmediate(resolve, { done: false, value: chunk }));
  }
  text(): Promise<string> {
    return Promise.reject(new Error('read as chunks'));
  }
  json(): Promise<unknown> {
    return Promise.reject(new Error('read as chunks'));
  }
  discard(): void {}
}

/** The parts of an express response the SSE writer uses; the bytes are only counted. */
class CountingResponse extends EventEmitter {
  statusCode = 200;
  writableEnded = false;
  writableNeedDrain = false;
  bytes = 0;
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  setHeader(): void {}
  write(chunk: Uint8Array): boolean {
    this.bytes += chunk.byteLength;
    return true;
  }
  end(chunk?: Uint8Array): void {
    if (chunk) this.bytes += chunk.byteLength;
    this.writableEnded = true;
  }
}

let outcomes = 0;
const observer = new GenerationObserver(() => {
  outcomes += 1;
}, () => false);
const drain = new DrainTracker({ healthPath: '/health' });
const logger = createLogger({ level: 'error', sink: () => undefined });
const attempt = { provider: { slug: 'anthropic' } } as Attempt;
const request = { model: 'anthropic/claude-sonnet-4.5', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] } as MessageRequest;
// Stands for the attempt's outcome stage (streamOutcomeStage, src/messages/attempt-answers.ts), which reports to routing at the end.
const outcomeStage = (): EventStage => ({ event: (event) => event, end: () => undefined });
const noNextModel = () => Promise.resolve(null);
const additions = { model: 'anthropic/claude-sonnet-4.5', providerName: 'Anthropic', isByok: true, priceUsage: () => 0.000186 };

/** One streamed answer, from the passthrough to the response's end. */
async function streamOnce(chunks: readonly Buffer[], response?: Response): Promise<number> {
  const context = {
    generationId: 'gen_bench',
    caller: { accountId: 'account', workspaceId: 'workspace', keyHash: 'key' },
    trail: { strategy: 'fallback', records: [], served: null },
    startedAt: performance.now(),
    signal: new AbortController().signal,
  } as unknown as MessagesRequestContext;
  const observed = observer.begin(request, context);
  const started = await startStream(attempt, { events: new PassedEvents('anthropic', new PacketBody(chunks)), warnings: [] });
  const res = response ?? (new CountingResponse() as unknown as Response);
  const writer = createSseWriter(res);
  writer.open({});
  const amended = amendStream(staged(startedEvents(started), outcomeStage()), additions);
  const events = spliceRefusalFallbacks(amended, 'anthropic/claude-sonnet-4.5', noNextModel);
  await streamToClient(writer, observer.observeStream(observed, drain.guardStream(events)), logger);
  return 0;
}

/** Streams over `node:http`: a server whose handler runs `streamOnce`, and a keep-alive client reading each answer whole. */
async function httpStreams(chunks: readonly Buffer[]): Promise<() => Promise<number>> {
  // The SSE writer sets the status through express's `status`; a plain response gets the same one-liner.
  (ServerResponse.prototype as unknown as { status(code: number): ServerResponse }).status = function status(this: ServerResponse, code: number) {
    this.statusCode = code;
    return this;
  };
  const server = createServer((_req, res) => void streamOnce(chunks, res as unknown as Response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return () =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/', method: 'GET', agent }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
      });
      req.on('error', reject);
      req.end();
    });
}

const nextMessage = () => new Promise<unknown>((resolve) => process.once('message', resolve));

/** Warms up, then runs `rounds` measured rounds of streams. */
export async function runChild(options: ChildOptions): Promise<void> {
  const chunks = options.paced ? PACED : [PACKET];
  const once = options.http ? await httpStreams(chunks) : () => streamOnce(chunks);
  for (let index = 0; index < options.warmup; index += 1) await once();
  const expected = outcomes;
  for (let round = 0; round < options.rounds; round += 1) {
    const go = nextMessage();
    process.send?.({ ready: true });
    await go;
    for (let index = 0; index < options.streams; index += 1) await once();
    const next = nextMessage();
    process.send?.({ measured: options.streams });
    await next;
  }
  if (outcomes !== expected + options.streams * options.rounds) throw new Error(`${outcomes - expected} outcomes for ${options.streams * options.rounds} streams`);
  process.disconnect?.();
}
