import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliverReply } from './deliver-reply.ts';
import type { FakeReply, ReplyDelivery } from './fake-reply.ts';
import { queryRecord, type RecordedRequest, type WireFormat } from './wire-format.ts';

/** Options every fake upstream accepts. */
export interface FakeUpstreamOptions {
  /** Scripted replies, used one per request in order; more can be added with `enqueue`. */
  replies?: readonly FakeReply[];
  /** Answer once the script is used up; by default a 501 in the vendor's error shape, so a test fails loudly. */
  whenEmpty?: FakeReply;
  /** Delivery settings applied under every reply's own (e.g. `{ split: { seed: 7 } }` for every stream). */
  delivery?: ReplyDelivery;
}

/** A running fake vendor API on 127.0.0.1. */
export interface FakeUpstream {
  /** Origin, e.g. `http://127.0.0.1:43567`. */
  readonly url: string;
  /** The base URL the vendor's own client expects (origin plus the API's path prefix, if its client wants one). */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Appends scripted replies. */
  enqueue(...replies: FakeReply[]): void;
  /** How many scripted replies are still unused. */
  pendingReplies(): number;
  /** The most recent request; throws when there was none. */
  lastRequest(): RecordedRequest;
  /**
   * When the exchange of a recorded request ended (`performance.now()`): its response finished or its
   * connection closed, e.g. because the gateway let a stalled stream go.
   */
  exchangeClosed(request: RecordedRequest): Promise<number>;
  /** Forgets recorded requests and unused replies. */
  clear(): void;
  /** Stops listening and cuts open connections, including stalled streams. */
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function asksForStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'stream' in body && body.stream === true;
}

/** Starts a fake upstream speaking `format` on 127.0.0.1 with an ephemeral port. */
export async function startFakeUpstream(
  format: WireFormat,
  options: FakeUpstreamOptions = {},
  basePath = '',
): Promise<FakeUpstream> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const closings = new WeakMap<RecordedRequest, Promise<number>>();
  const closing = new AbortController();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const rawBody = await readBody(req);
    const body = parseJson(rawBody);
    const match = format.route(method, url.pathname);
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      query: queryRecord(url.searchParams),
      headers: req.headers,
      body,
      rawBody,
      operation: match?.operation ?? 'unknown',
      params: match?.params ?? {},
      streaming: match?.streamingPath ?? asksForStream(body),
    };
    requests.push(request);
    closings.set(request, new Promise((resolve) => res.once('close', () => resolve(performance.now()))));
    const signal = AbortSignal.any([closing.signal, abortOnClose(res)]);
    const context = { format, request, signal };
    if (match === undefined) {
      const message = `fake upstream: no route for ${method} ${url.pathname}`;
      await deliverReply(res, { type: 'error', status: 404, message }, context);
      return;
    }
    const direct = format.answerDirectly?.(request);
    if (direct !== undefined) {
      await deliverReply(res, { type: 'json', status: direct.status, body: direct.body, ...(direct.headers ? { headers: direct.headers } : {}) }, context);
      return;
    }
    const scripted = queue.shift() ?? options.whenEmpty;
    const next = scripted?.type === 'either' ? (request.streaming ? scripted.stream : scripted.json) : scripted;
    if (next === undefined) {
      const message = `fake upstream: no scripted reply left for ${method} ${url.pathname}`;
      await deliverReply(res, { type: 'error', status: 501, message }, context);
      return;
    }
    await deliverReply(res, next.type === 'reset' ? next : { ...options.delivery, ...next }, context);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A broken script is a test bug: answer 500 with the reason rather than hang the client.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake upstream failure: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: origin,
    baseURL: `${origin}${basePath}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    pendingReplies: () => queue.length,
    lastRequest() {
      const last = requests.at(-1);
      if (last === undefined) throw new Error('the fake upstream has received no request');
      return last;
    },
    exchangeClosed(request) {
      const closed = closings.get(request);
      if (closed === undefined) throw new Error('exchangeClosed: not a request this fake received');
      return closed;
    },
    clear() {
      requests.length = 0;
      queue.length = 0;
    },
    async close() {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function abortOnClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  return controller.signal;
}
