import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureUpstreamHttp, upstreamFetch, upstreamRequest } from '#src/providers/http-client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let handler: Handler = (_req, res) => res.end('ok');
const sockets = new Set<unknown>();

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  server.on('connection', (socket) => sockets.add(socket));
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

const post = (signal = new AbortController().signal) =>
  upstreamRequest(`${origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal });

describe('upstreamRequest', () => {
  it('sends the method, headers and body and returns status, headers and body', async () => {
    let received: { method?: string; type?: string; body: string } = { body: '' };
    handler = (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received = { method: req.method, type: req.headers['content-type'], body };
        res.writeHead(201, { 'x-answer': 'yes' }).end('done');
      });
    };
    const response = await post();
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-answer']).toBe('yes');
    expect(await response.body.text()).toBe('done');
    expect(received).toEqual({ method: 'POST', type: 'application/json', body: '{"a":1}' });
  });

  it('reuses the kept-alive connection for later calls', async () => {
    handler = (req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    };
    await (await post()).body.text();
    sockets.clear();
    for (let index = 0; index < 6; index += 1) await (await post()).body.text();
    // The pool may open a second connection while the first is being released, never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('fails with a headers timeout when the upstream is silent longer than configured', async () => {
    configureUpstreamHttp({ headersTimeoutMs: 100 });
    handler = () => undefined;
    const begun = performance.now();
    await expect(post()).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(performance.now() - begun).toBeLessThan(2_000);
  });

  it('fails with a body timeout when the body stalls longer than configured', async () => {
    configureUpstreamHttp({ bodyTimeoutMs: 100 });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\n');
    };
    const response = await post();
    await expect(response.body.text()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
  });

  it('goes back to the generous defaults when reconfigured without values', async () => {
    configureUpstreamHttp({ headersTimeoutMs: 100 });
    configureUpstreamHttp({});
    handler = (_req, res) => void sleep(300).then(() => res.end('late'));
    expect(await (await post()).body.text()).toBe('late');
  });

  it('lets a call in flight finish when the dispatcher is replaced', async () => {
    handler = (_req, res) => void sleep(150).then(() => res.end('finished'));
    const pending = post();
    await sleep(20);
    configureUpstreamHttp({ headersTimeoutMs: 5_000 });
    expect(await (await pending).body.text()).toBe('finished');
  });

  it('stops when the signal aborts', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const pending = post(controller.signal);
    controller.abort(new Error('client disconnected'));
    await expect(pending).rejects.toThrow('client disconnected');
  });
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
