/**
 * Child process: a minimal, fast Anthropic-format upstream on 127.0.0.1. `POST /v1/messages` answers a fixed
 * small message, or, when the body asks for `"stream":true`, a short SSE stream of the usual events. The
 * answers are built once; per request the server only reads the body and writes prepared bytes, so it stays
 * well below the cost of anything put in front of it. It is measured itself as the "direct" row.
 *
 * A stream for the model `claude-bench-slow` trickles instead, as a real model does: the opening events at
 * once, then one text delta every `BENCH_TRICKLE_INTERVAL_MS` (1000), `BENCH_TRICKLE_DELTAS` (20) times, then
 * the closing events. The bench holds many of these open at once (`--streams`). A stream for
 * `claude-bench-paced` writes the usual events one at a time, 1 ms apart, as a real upstream's events arrive
 * in packets of their own: the sequential probe times the first byte and the first text delta on it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failStart, serveParent } from './child-process.ts';
import { PACED_MODEL, SLOW_MODEL } from './bench-models.ts';
import { BENCH_MESSAGE as MESSAGE, sse, streamEvents } from './bench-stream.ts';

/** What the upstream reports to the parent once listening. */
export interface UpstreamReady {
  origin: string;
}

const STREAM = Buffer.from(streamEvents('claude-sonnet-4-5').join(''));
const PACED_EVENTS = streamEvents(PACED_MODEL).map((event) => Buffer.from(event));

function pace(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let next = 0;
  const send = (): void => {
    const event = PACED_EVENTS[next++];
    if (!event || res.destroyed) return;
    if (next === PACED_EVENTS.length) res.end(event);
    else {
      res.write(event);
      setTimeout(send, 1);
    }
  };
  send();
}

const trickleIntervalMs = Number(process.env.BENCH_TRICKLE_INTERVAL_MS ?? 1000);
const trickleDeltas = Number(process.env.BENCH_TRICKLE_DELTAS ?? 20);

const STREAM_OPENING = Buffer.from(
  [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_bench_0000000000000000000003',
        type: 'message',
        role: 'assistant',
        model: SLOW_MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ].join(''),
);
const STREAM_DELTA = Buffer.from(sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'token ' } }));
const STREAM_CLOSING = Buffer.from(
  [
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: trickleDeltas } }),
    sse('message_stop', { type: 'message_stop' }),
  ].join(''),
);

function trickle(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(STREAM_OPENING);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent === trickleDeltas) {
      clearInterval(timer);
      res.end(STREAM_CLOSING);
      return;
    }
    sent += 1;
    res.write(STREAM_DELTA);
  }, trickleIntervalMs);
  res.on('close', () => clearInterval(timer));
}

const NOT_FOUND = Buffer.from(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'Not found' } }));

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  // The OTLP collector of the observability row: takes the export, answers an empty success.
  if (req.method === 'POST' && req.url === '/v1/traces') {
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/messages') {
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': NOT_FOUND.length }).end(NOT_FOUND);
    return;
  }
  // Every client here serialises with JSON.stringify, so the flag has no spaces around its colon.
  if (body.includes('"stream":true')) {
    if (body.includes(`"model":"${SLOW_MODEL}"`)) {
      trickle(res);
      return;
    }
    if (body.includes(`"model":"${PACED_MODEL}"`)) {
      pace(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' }).end(STREAM);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': MESSAGE.length, 'request-id': 'req_bench' }).end(MESSAGE);
}

try {
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serveParent({ origin: `http://127.0.0.1:${port}` } satisfies UpstreamReady, () => {
    server.closeAllConnections();
    server.close();
  });
} catch (error) {
  failStart(error);
}
