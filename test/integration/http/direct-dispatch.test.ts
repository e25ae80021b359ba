/**
 * `POST /messages` runs its fixed chain without express's router (src/http/direct-dispatch.ts); any request
 * with a subscriber on the router's tracing channel goes through express instead. So each request here is
 * sent twice, once each way, on the wire, and the two answers must be the same bytes: status line, every
 * header in order (Date aside), body, with only the generation ids differing. Response validation is off, as
 * in production, so a JSON answer is written by src/http/send-json.ts (test/unit/http/send-json.test.ts
 * holds it to express's res.json).
 */
import { connect } from 'node:net';
import { tracingChannel } from 'node:diagnostics_channel';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const BODY_LIMIT = 4096;
const GENERATION_ID = /gen_[0-9a-z]{9}[A-Za-z0-9_-]{15}/g;

let upstream: FakeUpstream;
let gateway: TestGateway;
let authorization: string;

interface Answer {
  /** The response's bytes up to the body, Date removed, generation ids replaced. */
  head: string;
  body: string;
  /** Times express's router dispatched a request (`Router.prototype.handle`) while this one ran. */
  routerWalks: number;
}

const routerPrototype = express.Router.prototype as unknown as { handle: (...args: unknown[]) => unknown };

/** Counts express router dispatches until `run` settles. */
async function countingRouterWalks<T>(run: () => Promise<T>): Promise<{ result: T; walks: number }> {
  const original = routerPrototype.handle;
  let walks = 0;
  routerPrototype.handle = function counted(this: unknown, ...args: unknown[]) {
    walks += 1;
    return original.apply(this, args);
  };
  try {
    return { result: await run(), walks };
  } finally {
    routerPrototype.handle = original;
  }
}

/** A raw request: the request line, headers and body exactly as given, `Connection: close` added. */
function rawRequest(options: { path?: string; headers?: Record<string, string>; body?: string; method?: string }): string {
  const body = options.body ?? JSON.stringify(MESSAGE);
  const headers: Record<string, string> = {
    host: '127.0.0.1',
    authorization,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...options.headers,
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${options.method ?? 'POST'} ${options.path ?? '/api/v1/messages'} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Normalizes an answer read off the socket: Date dropped, generation ids replaced, chunked framing removed. */
function readAnswer(bytes: Buffer, routerWalks: number): Answer {
  const text = bytes.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  let body = text.slice(split + 4);
  if (/\r\ntransfer-encoding: chunked/i.test(head)) {
    let plain = '';
    for (let rest = body; rest.length > 0; ) {
      const end = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, end), 16);
      if (!(size > 0)) break;
      plain += rest.slice(end + 2, end + 2 + size);
      rest = rest.slice(end + 2 + size + 2);
    }
    body = plain;
  }
  const lines = head.split('\r\n').filter((line) => !/^date:/i.test(line));
  return { head: lines.join('\r\n').replace(GENERATION_ID, 'gen_ID'), body: body.replace(GENERATION_ID, 'gen_ID'), routerWalks };
}

/**
 * A connection to the gateway: what is written, and everything read until the gateway closes it or a chunked
 * answer ends (an event stream keeps its connection open: the SSE writer sets `Connection: keep-alive`).
 */
function openConnection(): { write(bytes: string): void; answer: Promise<Buffer> } {
  const socket = connect(Number(new URL(gateway.origin).port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (chunk.toString('latin1').endsWith('\r\n0\r\n\r\n')) socket.destroy();
  });
  socket.on('error', () => undefined);
  const answer = new Promise<Buffer>((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks))));
  return { write: (bytes) => socket.write(bytes), answer };
}

/** Sends `request` on a new connection and reads the answer until the gateway closes it. */
async function exchange(request: string): Promise<Answer> {
  const { result, walks } = await countingRouterWalks(() => {
    const connection = openConnection();
    connection.write(request);
    return connection.answer;
  });
  return readAnswer(result, walks);
}

const tracing = tracingChannel('express.router.request');
const noop = (): void => undefined;
const subscriber = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };

/** Runs `send` with the router's tracing channel subscribed, which sends every request through express. */
async function throughExpress<T>(send: () => Promise<T>): Promise<T> {
  tracing.subscribe(subscriber);
  try {
    return await send();
  } finally {
    tracing.unsubscribe(subscriber);
  }
}

/** The request sent directly, then through express, each after `before`: both answers. */
async function bothWays(request: string, before: () => void): Promise<{ direct: Answer; express: Answer }> {
  before();
  const direct = await exchange(request);
  before();
  const viaExpress = await throughExpress(() => exchange(request));
  return { direct, express: viaExpress };
}

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({
    catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-direct-0001" }\n`,
    env: { SWITCHBOARD_VALIDATE_RESPONSES: 'false', SWITCHBOARD_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
  });
  authorization = `Bearer ${gateway.api_key}`;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const CASES: { name: string; request: () => string; status: number; upstreamReply?: () => FakeReply }[] = [
  { name: 'a JSON answer', request: () => rawRequest({}), status: 200 },
  { name: "a JSON answer to Claude Code's ?beta=true", request: () => rawRequest({ path: '/api/v1/messages?beta=true' }), status: 200 },
  { name: 'a streamed answer', request: () => rawRequest({ body: JSON.stringify({ ...MESSAGE, stream: true }) }), status: 200 },
  { name: 'a JSON answer to a Content-Type with parameters', request: () => rawRequest({ headers: { 'content-type': 'application/json; charset=utf-8' } }), status: 200 },
  { name: 'a body the validator refuses', request: () => rawRequest({ body: JSON.stringify({ ...MESSAGE, max_tokens: 'many' }) }), status: 400 },
  { name: 'an undeclared query parameter', request: () => rawRequest({ path: '/api/v1/messages?beta=true&other=1' }), status: 400 },
  { name: 'no key', request: () => rawRequest({ headers: { authorization: '' } }), status: 401 },
  { name: 'an unknown key', request: () => rawRequest({ headers: { authorization: 'Bearer sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } }), status: 401 },
  { name: 'malformed JSON', request: () => rawRequest({ body: '{"model": ' }), status: 400 },
  { name: 'a JSON scalar', request: () => rawRequest({ body: '"hello"' }), status: 400 },
  { name: 'a media type the operation does not take', request: () => rawRequest({ headers: { 'content-type': 'text/plain' } }), status: 415 },
  { name: 'a body over the limit', request: () => rawRequest({ body: JSON.stringify({ ...MESSAGE, messages: [{ role: 'user', content: 'x'.repeat(BODY_LIMIT) }] }) }), status: 413 },
  { name: 'a model nobody serves (refused by the route)', request: () => rawRequest({ body: JSON.stringify({ ...MESSAGE, model: 'anthropic/no-such-model' }) }), status: 404 },
  { name: 'an upstream refusal (the route fails after its await)', request: () => rawRequest({}), status: 400, upstreamReply: () => reply.error(400) },
];

describe('POST /messages dispatched directly answers as express does', () => {
  it.each(CASES)('$name', async ({ request, status, upstreamReply }) => {
    const { direct, express: viaExpress } = await bothWays(request(), () => upstreamReply && upstream.enqueue(upstreamReply()));
    expect(direct.head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(direct.head).toMatch(/\r\nX-Generation-Id: gen_ID\r\n/);
    expect(direct.head).toMatch(/\r\nrequest-id: gen_ID\r\n/);
    expect(direct.head).toBe(viaExpress.head);
    expect(direct.body).toBe(viaExpress.body);
    // Express's router did the dispatch only on the way through express (the validator's own chain, which
    // a refusal goes through, is a router too).
    expect(direct.routerWalks).toBeLessThan(viaExpress.routerWalks);
  });

  it('takes only the exact path: another case or a trailing slash goes through express, as before', async () => {
    for (const path of ['/api/v1/messages/', '/api/v1/Messages']) {
      const answer = await exchange(rawRequest({ path }));
      expect(answer.routerWalks).toBeGreaterThan(0);
    }
  });

  it('answers a request on a connection already open while draining with the shutdown error, both ways', async () => {
    // A request in flight keeps the drain going while the two half-sent requests are finished.
    let release: () => void = noop;
    upstream.enqueue(reply.fixture('anthropic-text', { until: new Promise<void>((resolve) => (release = resolve)) }));
    const seen = upstream.requests.length;
    const inFlight = exchange(rawRequest({}));
    await expect.poll(() => upstream.requests.length).toBeGreaterThan(seen);
    const request = rawRequest({});
    const split = request.indexOf(' HTTP/1.1');
    const [first, second] = [openConnection(), openConnection()];
    first.write(request.slice(0, split));
    second.write(request.slice(0, split));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = gateway.server.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const direct = await countingRouterWalks(() => {
      first.write(request.slice(split));
      return first.answer;
    });
    const viaExpress = await throughExpress(() =>
      countingRouterWalks(() => {
        second.write(request.slice(split));
        return second.answer;
      }),
    );
    release();
    expect((await inFlight).head).toMatch(/^HTTP\/1\.1 200 /);
    await closing;
    const directAnswer = readAnswer(direct.result, direct.walks);
    const expressAnswer = readAnswer(viaExpress.result, viaExpress.walks);
    expect(directAnswer.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(directAnswer.body)).toEqual({ type: 'error', error: { type: 'overloaded_error', code: 503, message: expect.any(String) }, request_id: 'gen_ID' });
    expect(directAnswer.head).toBe(expressAnswer.head);
    expect(directAnswer.body).toBe(expressAnswer.body);
    expect(directAnswer.routerWalks).toBe(0);
    expect(expressAnswer.routerWalks).toBeGreaterThan(0);
  });
});
