/**
 * Child process: the practical floor for a Node gateway, a pass-through proxy built on `node:http` and one
 * `undici.Pool` to the upstream. It reads the client's body, forwards it with the upstream's auth header, and
 * pipes the answer back byte for byte (JSON or SSE alike): no parsing, no routing, no validation.
 * Its CPU per request is what the gateway is compared against.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { failStart, serveParent } from './child-process.ts';

/** What the floor proxy reports to the parent once listening. */
export interface FloorReady {
  origin: string;
}

const upstreamOrigin = process.env.BENCH_UPSTREAM_ORIGIN;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function forward(pool: Pool, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const upstream = await pool.request({
    path: req.url ?? '/',
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': String(req.headers['anthropic-version'] ?? '2023-06-01'),
      'x-api-key': 'sk-ant-bench-floor-0000000000',
    },
    body: Buffer.concat(chunks),
  });
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  res.writeHead(upstream.statusCode, headers);
  await pipeline(upstream.body, res);
}

try {
  if (!upstreamOrigin) throw new Error('BENCH_UPSTREAM_ORIGIN is not set');
  const pool = new Pool(upstreamOrigin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    forward(pool, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serveParent({ origin: `http://127.0.0.1:${port}` } satisfies FloorReady, async () => {
    server.closeAllConnections();
    server.close();
    await pool.close();
  });
} catch (error) {
  failStart(error);
}
