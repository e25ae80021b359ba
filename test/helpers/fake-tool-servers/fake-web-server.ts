/**
 * A web server on 127.0.0.1 (or another loopback address) for `gateway:web_fetch` tests. It serves the routes
 * a test gives, records each request, and counts accepted TCP connections, so a test can prove that a refused
 * URL never opened a socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Answers one request. */
export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A running fake web server. */
export interface FakeWebServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Paths requested, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

/** Starts the server; unknown paths answer 404. */
export async function startFakeWebServer(routes: Record<string, Route>, host = '127.0.0.1'): Promise<FakeWebServer> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    paths.push(path);
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('connection', (socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    connections: () => accepted,
    paths,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A route answering `body` with a content type. */
export function serve(contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): Route {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, ...headers }).end(body);
  };
}

/** A route redirecting to `location` with `status`. */
export function redirect(location: string, status = 302): Route {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}
