/**
 * An HTTP server on 127.0.0.1 answering scripted replies in order, one per request (a reply may be made from
 * the request), and recording each request (path, query, headers). The search backend fakes build on it with their vendor's real wire format.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer: a JSON body (or raw text), a status, headers, an optional delay before answering. */
export interface ScriptedReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** One request the server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

/** A reply, or one made from the request it answers (a backend that quotes what it was sent). */
export type ScriptedAnswer = ScriptedReply | ((request: ReceivedRequest) => ScriptedReply);

/** A running scripted server. */
export interface ScriptedServer {
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  enqueue(...replies: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

/** Starts the server; requests outside `paths`, or beyond the script, answer 404 and 501. */
export async function startScriptedServer(paths: readonly string[]): Promise<ScriptedServer> {
  const queue: ScriptedAnswer[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const received: ReceivedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers };
    requests.push(received);
    const answer: ScriptedAnswer = paths.includes(url.pathname) ? queue.shift() ?? { status: 501, body: 'no scripted reply left' } : { status: 404, body: 'no such path' };
    const reply = typeof answer === 'function' ? answer(received) : answer;
    const send = () => {
      if (res.destroyed) return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      const type = typeof reply.body === 'string' ? 'text/html; charset=utf-8' : 'application/json';
      res.writeHead(reply.status ?? 200, { 'content-type': type, ...reply.headers }).end(text);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
