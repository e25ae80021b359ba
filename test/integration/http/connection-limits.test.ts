/**
 * The gateway's defences against greedy and slow clients, on the wire with raw sockets: a body over the limit
 * answers 413 in the operation's error shape as soon as its Content-Length (or the chunks received) say so,
 * and the connection is closed without reading the rest; a client trickling its headers (slowloris) or its
 * body is cut off with a 408 within the timeout; a long streamed answer is not; idle keep-alive connections
 * close; too many header fields answer 431. Each of these answers names itself in `request-id`, as the log
 * line about it does, though the management error shape it is written in has no body field for it.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { limitsCatalog, startAnsweringUpstream, streamWithKey } from '#test/integration/limits/limits-support.ts';

const BODY_LIMIT = 1024 * 1024;
const HEADERS_TIMEOUT_MS = 1_000;
const BODY_TIMEOUT_MS = 2_000;

/** A raw connection: what it received, and when the server closed it. */
interface RawConnection {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
}

function open(gateway: TestGateway): Promise<RawConnection> {
  const { hostname, port } = new URL(gateway.origin);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  return new Promise((resolve) => socket.once('connect', () => resolve({ socket, received: () => text, closed })));
}

/** The status and parsed JSON body of the first response in `text`. */
function parseResponse(text: string): { status: number; headers: string; body: any } {
  const end = text.indexOf('\r\n\r\n');
  const head = text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const rest = text.slice(end + 4);
  const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? rest.length);
  return { status, headers: head, body: JSON.parse(rest.slice(0, length)) };
}

const REQUEST_ID = /^gen_[0-9a-z]{9}[A-Za-z0-9_-]{15}$/;

/** The `request-id` header of a raw response head. */
function requestIdOf(head: string): string | undefined {
  return /\r\nrequest-id: ([^\r]+)/i.exec(`\r\n${head}`)?.[1];
}

/** The gateway's log lines naming `id` as their request_id. */
function loggedWith(gateway: TestGateway, id: string): { message?: string; code?: string }[] {
  return gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.request_id === id);
}

/** Writes body bytes as fast as the connection takes them, until it closes; returns how many it took. */
async function pour(connection: RawConnection, chunk: Buffer, maxBytes: number, frame: (chunk: Buffer) => Buffer = (bytes) => bytes): Promise<number> {
  let written = 0;
  let closed = false;
  void connection.closed.then(() => (closed = true));
  while (!closed && written < maxBytes) {
    const accepted = connection.socket.write(frame(chunk));
    written += chunk.length;
    if (!accepted) await Promise.race([new Promise((resolve) => connection.socket.once('drain', resolve)), connection.closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
  return written;
}

describe('connection limits on the wire', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startAnsweringUpstream({ chunkDelayMs: 300 });
    gateway = await startTestGateway({
      catalogYaml: limitsCatalog(upstream),
      env: {
        SWITCHBOARD_BODY_LIMIT_BYTES: String(BODY_LIMIT),
        SWITCHBOARD_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        SWITCHBOARD_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
        SWITCHBOARD_KEEP_ALIVE_TIMEOUT_MS: '500',
        SWITCHBOARD_MAX_HEADER_COUNT: '40',
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('answers a body announced over the limit with 413 at once and closes without reading it', async () => {
    const connection = await open(gateway);
    const declared = 256 * 1024 * 1024;
    connection.socket.write(
      `POST /api/v1/messages HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${gateway.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    const started = Date.now();
    const written = await pour(connection, Buffer.alloc(64 * 1024, 0x20), declared);
    const closedAt = await connection.closed;
    const response = parseResponse(connection.received());
    expect(response.status).toBe(413);
    expect(response.headers).toMatch(/connection: close/i);
    expect(response.body).toEqual({
      type: 'error',
      error: { type: 'request_too_large', code: 413, message: `Request body too large: at most ${BODY_LIMIT} bytes are accepted` },
      request_id: expect.stringMatching(/^gen_/),
    });
    // The server stopped reading and closed: what the client got to write is what the socket buffers held.
    expect(closedAt - started).toBeLessThan(3_000);
    expect(written).toBeLessThan(declared / 8);
  });

  it('answers a chunked body with 413 once the chunks pass the limit, and closes', async () => {
    const connection = await open(gateway);
    connection.socket.write(`POST /api/v1/keys HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${gateway.management_key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const written = await pour(connection, chunk, 256 * 1024 * 1024, (bytes) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
    await connection.closed;
    const response = parseResponse(connection.received());
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: { code: 413, message: `Request body too large: at most ${BODY_LIMIT} bytes are accepted` } });
    expect(requestIdOf(response.headers)).toMatch(REQUEST_ID);
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('reads a body under the limit as usual', async () => {
    const response = await fetch(`${gateway.baseUrl}/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'inference', name: 'x'.repeat(BODY_LIMIT - 100) }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe('/body/name');
  });

  it('cuts a client trickling its headers (slowloris) with 408 within the header timeout', async () => {
    const connection = await open(gateway);
    const started = Date.now();
    connection.socket.write('GET /api/v1/health HTTP/1.1\r\nHost: gateway\r\n');
    const trickle = setInterval(() => connection.socket.write('X-Slow: 1\r\n'), 200);
    const closedAt = await connection.closed;
    clearInterval(trickle);
    expect(closedAt - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(closedAt - started).toBeLessThan(HEADERS_TIMEOUT_MS + 1_000);
    const response = parseResponse(connection.received());
    expect(response.status).toBe(408);
    expect(response.body.error.code).toBe(408);
    expect(response.body.error.message).toMatch(/^Request Timeout: /);
    // Named as every answer is, in the header alone (the ErrorBody shape keeps its fields), and in the log line.
    expect(Object.keys(response.body)).toEqual(['error']);
    const id = requestIdOf(response.headers);
    expect(id).toMatch(REQUEST_ID);
    expect(loggedWith(gateway, id!)).toEqual([expect.objectContaining({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })]);
  });

  it('cuts a client trickling its body with 408 within the body timeout', async () => {
    const connection = await open(gateway);
    const started = Date.now();
    connection.socket.write(`POST /api/v1/keys HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${gateway.management_key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{`);
    const trickle = setInterval(() => connection.socket.write(' '), 200);
    const closedAt = await connection.closed;
    clearInterval(trickle);
    expect(closedAt - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(closedAt - started).toBeLessThan(BODY_TIMEOUT_MS + 1_000);
    const response = parseResponse(connection.received());
    expect(response.status).toBe(408);
    const id = requestIdOf(response.headers);
    expect(id).toMatch(REQUEST_ID);
    expect(loggedWith(gateway, id!)).toEqual([expect.objectContaining({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })]);
  });

  it('lets a streamed answer run longer than both timeouts', async () => {
    const started = Date.now();
    const stream = await streamWithKey(gateway, gateway.api_key);
    expect(Date.now() - started).toBeGreaterThan(BODY_TIMEOUT_MS + 500);
    expect(stream.status).toBe(200);
    expect(stream.events.at(-1)?.event).toBe('message_stop');
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const connection = await open(gateway);
    connection.socket.write('GET /api/v1/health HTTP/1.1\r\nHost: gateway\r\n\r\n');
    const answeredAt = Date.now();
    const closedAt = await connection.closed;
    expect(parseResponse(connection.received()).status).toBe(200);
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(400);
    expect(closedAt - answeredAt).toBeLessThan(2_000);
  });

  it('answers more header fields than the limit with 431, whatever the path, before the request is read', async () => {
    const many = Object.fromEntries(Array.from({ length: 45 }, (_, index) => [`x-extra-${index}`, 'value']));
    for (const path of ['/messages', '/keys']) {
      const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...many }, body: '{}' });
      expect(response.status).toBe(431);
      expect(await response.json()).toEqual({ error: { code: 431, message: 'Request Header Fields Too Large: at most 40 header fields and 16384 bytes of headers are accepted' } });
      const id = response.headers.get('request-id');
      expect(id).toMatch(REQUEST_ID);
      expect(response.headers.get('x-generation-id')).toBeNull();
      expect(loggedWith(gateway, id!)).toEqual([expect.objectContaining({ code: 'HPE_HEADER_OVERFLOW' })]);
    }
    // Headers too large in bytes (node's own limit) answer the same way.
    const huge = await fetch(`${gateway.baseUrl}/keys`, { headers: { authorization: `Bearer ${gateway.management_key}`, 'x-huge': 'h'.repeat(20_000) } });
    expect(huge.status).toBe(431);
    expect(huge.headers.get('request-id')).toMatch(REQUEST_ID);
    expect(loggedWith(gateway, huge.headers.get('request-id')!)).toEqual([expect.objectContaining({ code: 'HPE_HEADER_OVERFLOW' })]);
    const within = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`x-extra-${index}`, 'value']));
    const fewer = await fetch(`${gateway.baseUrl}/keys`, { headers: { authorization: `Bearer ${gateway.management_key}`, ...within } });
    expect(fewer.status).toBe(200);
  });
});
