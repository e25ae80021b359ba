import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureUpstreamHttp, upstreamFetch } from '#src/providers/http-client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let handler: Handler = (_req, res) => res.end('ok');

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  configureUpstreamHttp({});
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  configureUpstreamHttp({});
  handler = (_req, res) => res.end('ok');
});

describe('upstreamFetch', () => {
  it('answers like fetch', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    const response = await upstreamFetch(`${origin}/x`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('goes through the configured dispatcher and its timeouts', async () => {
    configureUpstreamHttp({ headersTimeoutMs: 100 });
    handler = () => undefined;
    const failure = await upstreamFetch(`${origin}/x`).catch((error: unknown) => error);
    expect(failure).toMatchObject({ cause: { code: 'UND_ERR_HEADERS_TIMEOUT' } });
  });
});
