import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { configureUpstreamHttp, upstreamDispatcher } from '#src/providers/http-client.ts';
import { exchangeUpstream } from '#src/providers/upstream-exchange.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let handler: Handler = (_req, res) => res.end('ok');
const sockets = new Set<Socket>();

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
beforeEach(() => sockets.clear());
afterEach(() => {
  configureUpstreamHttp({});
  handler = (_req, res) => res.end('ok');
});

const post = (signal = new AbortController().signal) =>
  exchangeUpstream(`${origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal });

// undici's request() as the adapter used it before: errors must come out of both the same.
const postWithRequest = (signal = new AbortController().signal) =>
  request(`${origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal, dispatcher: upstreamDispatcher() });

async function failureOf(promise: Promise<unknown>): Promise<{ name: string; code: unknown; message: string }> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (thrown: unknown) => thrown as Error & { code?: unknown },
  );
  return { name: error.constructor.name, code: (error as { code?: unknown }).code, message: error.message };
}

async function readChunks(body: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk.toString();
  return text;
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('exchangeUpstream', () => {
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

  it('reads a body whole as JSON, dropping a byte-order mark as undici did, and chunk by chunk', async () => {
    handler = (_req, res) => res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"ok":true}')]));
    expect(await (await post()).body.json()).toEqual({ ok: true });
    handler = (_req, res) => {
      res.write('one,');
      setTimeout(() => res.end('two'), 20);
    };
    expect(await readChunks((await post()).body)).toBe('one,two');
    handler = (_req, res) => res.end('not json');
    await expect((await post()).body.json()).rejects.toBeInstanceOf(SyntaxError);
  });

  it('keeps one connection for complete responses, however their bodies were read or dropped', async () => {
    handler = (req, res) => {
      req.resume();
      req.on('end', () => res.end('{"n":1}'));
    };
    await (await post()).body.text();
    sockets.clear();
    for (let index = 0; index < 3; index += 1) {
      await (await post()).body.json();
      await readChunks((await post()).body);
      const response = await post();
      await sleep(10);
      response.body.discard();
    }
    // The pool may open a second connection while the first is being released, never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
    expect([...sockets].filter((socket) => socket.destroyed)).toEqual([]);
  });

  it('pauses an upstream that writes faster than the body is read, and resumes it when reading goes on', async () => {
    const total = 48 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 0x61);
    let finished = false;
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
      let written = 0;
      const pump = () => {
        while (written < total) {
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end(() => (finished = true));
      };
      pump();
    };
    const response = await post();
    const iterator = response.body[Symbol.asyncIterator]();
    let received = (await iterator.next()).value?.length ?? 0;
    await sleep(400);
    // Unpaused, the gateway would have taken all 48 MiB into memory by now; loopback buffers hold a few MiB.
    expect(finished).toBe(false);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) received += next.value.length;
    expect(received).toBe(total);
    await sleep(20);
    expect(finished).toBe(true);
  });

  it('aborts the upstream request when an unfinished body is discarded or a loop over it is left', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\ndata: {}\n\n');
    };
    const discarded = await post();
    const first = await discarded.body[Symbol.asyncIterator]().next();
    expect(first.done).toBe(false);
    const [socket] = sockets;
    discarded.body.discard();
    await closed(socket as Socket);

    sockets.clear();
    const abandoned = await post();
    for await (const chunk of abandoned.body) if (chunk.length > 0) break;
    await closed([...sockets][0] as Socket);
  });

  it('aborts the upstream request when the signal aborts mid-body, and gives the reader the reason', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\ndata: {}\n\n');
    };
    const controller = new AbortController();
    const response = await post(controller.signal);
    const reading = readChunks(response.body);
    await sleep(20);
    const begun = performance.now();
    controller.abort(new Error('client disconnected'));
    await expect(reading).rejects.toThrow('client disconnected');
    await closed([...sockets][0] as Socket);
    expect(performance.now() - begun).toBeLessThan(250);
  });

  it('fails with a headers timeout when the upstream is silent longer than configured', async () => {
    configureUpstreamHttp({ headersTimeoutMs: 100 });
    handler = () => undefined;
    const begun = performance.now();
    await expect(post()).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(performance.now() - begun).toBeLessThan(2_000);
  });

  it('fails with a body timeout when the body stalls longer than configured, read whole or chunk by chunk', async () => {
    configureUpstreamHttp({ bodyTimeoutMs: 100 });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: ping\n');
    };
    await expect((await post()).body.text()).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
    await expect(readChunks((await post()).body)).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
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

  it('stops when the signal aborts before the headers, or had aborted already', async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const pending = post(controller.signal);
    controller.abort(new Error('client disconnected'));
    await expect(pending).rejects.toThrow('client disconnected');
    await expect(post(controller.signal)).rejects.toThrow('client disconnected');
  });
});

describe('errors are those of undici request()', () => {
  const breaksMidBody: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: ping\ndata: {}\n\n');
    setTimeout(() => res.socket?.destroy(), 20);
  };

  it('for an upstream that breaks off mid-body, read whole and chunk by chunk', async () => {
    handler = breaksMidBody;
    const expected = await failureOf(postWithRequest().then((response) => response.body.text()));
    expect(expected).toMatchObject({ name: 'SocketError', code: 'UND_ERR_SOCKET' });
    expect(await failureOf(post().then((response) => response.body.text()))).toEqual(expected);
    expect(await failureOf(post().then((response) => readChunks(response.body)))).toEqual(expected);
  });

  it('for a body shorter than its content-length', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('short');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const expected = await failureOf(postWithRequest().then((response) => response.body.text()));
    expect(await failureOf(post().then((response) => response.body.text()))).toEqual(expected);
  });

  it('for a connection reset before the headers', async () => {
    handler = (req) => req.socket.destroy();
    const expected = await failureOf(postWithRequest());
    expect(await failureOf(post())).toEqual(expected);
  });

  it('for a refused connection', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/v1/messages`;
    await new Promise((resolve) => gone.close(resolve));
    const signal = new AbortController().signal;
    const expected = await failureOf(request(url, { method: 'POST', body: '{}', signal, dispatcher: upstreamDispatcher() }));
    expect(expected.code).toBe('ECONNREFUSED');
    expect(await failureOf(exchangeUpstream(url, { method: 'POST', headers: {}, body: '{}', signal }))).toEqual(expected);
  });

  it('for a signal aborted without a reason', async () => {
    handler = () => undefined;
    const fromRequest = new AbortController();
    const expected = failureOf(postWithRequest(fromRequest.signal));
    const fromExchange = new AbortController();
    const actual = failureOf(post(fromExchange.signal));
    await sleep(20);
    fromRequest.abort();
    fromExchange.abort();
    expect(await actual).toEqual(await expected);
  });
});
