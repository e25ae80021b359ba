/**
 * Child process: a minimal, fast Anthropic-format upstream on 127.0.0.1. `POST /v1/messages` answers a fixed
 * small message, or, when the body asks for `"stream":true`, a short SSE stream of the usual events. The
 * answers are built once; per request the server only reads the body and writes prepared bytes, so it stays
 * well below the cost of anything put in front of it. It is measured itself as the "direct" row.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failStart, serveParent } from './child-process.ts';

/** What the upstream reports to the parent once listening. */
export interface UpstreamReady {
  origin: string;
}

const MESSAGE = Buffer.from(
  JSON.stringify({
    id: 'msg_bench_0000000000000000000001',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }),
);

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

const STREAM = Buffer.from(
  [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_bench_0000000000000000000002',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello! How can' } }),
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' I help you today?' } }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } }),
    sse('message_stop', { type: 'message_stop' }),
  ].join(''),
);

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
