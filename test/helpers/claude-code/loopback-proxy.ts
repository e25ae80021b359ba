/**
 * An HTTP proxy on 127.0.0.1 for a client under test (`HTTP_PROXY`/`HTTPS_PROXY` pointing at it, no
 * `NO_PROXY`): plain-HTTP requests to the allowed origin are forwarded byte for byte and recorded, so a test
 * sees exactly what the client sent; every other destination (a `CONNECT` tunnel, any other host or port) is
 * refused and recorded as an escape, so a test can prove the client talked to nothing but its target.
 */
import { createServer, request as forward, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the client sent to the allowed origin, as it left the client. */
export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/messages?beta=true`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or `undefined` when it was empty or not JSON. */
  body: unknown;
  /** The body's bytes as UTF-8 text, exactly as the client sent them. */
  rawBody: string;
  /** The status the gateway answered with, once its answer has begun. */
  status?: number;
}

/** A running loopback proxy. */
export interface LoopbackProxy {
  /** `http://127.0.0.1:<port>`, for `HTTP_PROXY` and `HTTPS_PROXY`. */
  readonly url: string;
  /** Requests forwarded to the allowed origin, in order. */
  readonly forwarded: ProxiedRequest[];
  /** Every refused destination, as `CONNECT host:port` or `METHOD absolute-url`. */
  readonly escapes: string[];
  /** Forgets what was recorded. */
  clear(): void;
  close(): Promise<void>;
}

// Headers that describe the hop between the client and the proxy, not the request itself (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'upgrade']);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/** Starts a proxy that forwards only to `allowedOrigin` (e.g. the gateway's `http://127.0.0.1:<port>`). */
export async function startLoopbackProxy(options: { allowedOrigin: string }): Promise<LoopbackProxy> {
  const allowed = new URL(options.allowedOrigin);
  const forwarded: ProxiedRequest[] = [];
  const escapes: string[] = [];

  async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined;
    if (target === undefined || target.origin !== allowed.origin) {
      escapes.push(`${req.method} ${req.url}`);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('loopback proxy: destination not allowed');
      return;
    }
    const body = await readBody(req);
    const path = `${target.pathname}${target.search}`;
    const headers = endToEndHeaders(req.headers);
    const record: ProxiedRequest = { method: req.method ?? 'GET', path, headers, body: parseJson(body), rawBody: body.toString('utf8') };
    forwarded.push(record);
    const upstream = forward({ host: allowed.hostname, port: allowed.port, method: req.method, path, headers }, (answer) => {
      record.status = answer.statusCode;
      res.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  }

  const server = createServer((req, res) => {
    relay(req, res).catch(() => res.destroy());
  });
  server.on('connect', (req: IncomingMessage, socket) => {
    escapes.push(`CONNECT ${req.url}`);
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    escapes,
    clear() {
      forwarded.length = 0;
      escapes.length = 0;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
