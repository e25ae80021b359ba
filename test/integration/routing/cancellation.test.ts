/**
 * Time and cancellation over HTTP: a client that disconnects (before the answer, or in the middle of a stream)
 * makes the gateway abort its upstream call, which the upstream sees as its connection closing; and a request
 * that outlives SWITCHBOARD_REQUEST_TIMEOUT_MS ends with a 504 timeout_error in Anthropic's error shape.
 */
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSseFrame, readChunks, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, messageBody, modelYaml, postMessage } from './routing-support.ts';

/** One request an upstream held open, and when its connection closed. */
interface HeldRequest {
  body: string;
  closed: Promise<number>;
}

/**
 * An Anthropic-format upstream that never finishes: it holds each request open (sending nothing, or the first
 * events of a recorded stream) and reports when the gateway closes the connection.
 */
async function startHoldingUpstream(): Promise<{ url: string; held: HeldRequest[]; arrived(): Promise<HeldRequest>; close(): Promise<void> }> {
  const held: HeldRequest[] = [];
  const waiting: ((request: HeldRequest) => void)[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const closed = new Promise<number>((resolve) => res.once('close', () => resolve(performance.now())));
      const request = { body, closed };
      held.push(request);
      if ((JSON.parse(body) as { stream?: boolean }).stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const payload of readChunks<{ type: string }>('anthropic', 'anthropic-text').slice(0, 4)) {
          res.write(encodeSseFrame({ event: payload.type, data: payload }));
        }
      }
      waiting.shift()?.(request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    arrived: () => new Promise((resolve) => waiting.push(resolve)),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);
}

describe('client disconnect', () => {
  let holding: Awaited<ReturnType<typeof startHoldingUpstream>>;
  let gateway: TestGateway;

  beforeAll(async () => {
    holding = await startHoldingUpstream();
    gateway = await startTestGateway({
      catalogYaml: catalogYaml(
        [`  alpha: { family: anthropic, display_name: "Alpha Cloud", base_url: "${holding.url}", api_key: "sk-alpha-shared-key-0001" }`],
        [modelYaml('test/slow', [{ provider: 'alpha', model: 'up-slow', price: [1, 2] }])],
      ),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await holding?.close();
  });

  /**
   * Sends a request on its own connection (node:http, no pooling) so that leaving really closes the socket;
   * fetch's abort may keep the connection in its pool and read the rest of the answer.
   */
  function send(stream: boolean): { request: ClientRequest; response: Promise<IncomingMessage> } {
    const request = httpRequest(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    response.catch(() => undefined);
    request.end(JSON.stringify(messageBody('test/slow', { stream })));
    return { request, response };
  }

  it('leaving before the answer aborts the upstream call', async () => {
    const arrived = holding.arrived();
    const { request } = send(false);
    const held = await within(arrived, 5_000, 'the upstream request');

    const leftAt = performance.now();
    request.destroy();
    const closedAt = await within(held.closed, 2_000, 'the upstream connection closing');
    expect(closedAt - leftAt).toBeLessThan(1_000);
  });

  it('leaving in the middle of a stream aborts the upstream stream', async () => {
    const arrived = holding.arrived();
    const { request, response } = send(true);
    const held = await within(arrived, 5_000, 'the upstream request');
    const answer = await within(response, 5_000, 'the response headers');
    expect(answer.statusCode).toBe(200);
    // Read up to the first text delta, so the client really is in the middle of the stream.
    const events = readSseEvents(answer);
    for (let next = await events.next(); !next.done && next.value.event !== 'content_block_delta'; next = await events.next());

    const leftAt = performance.now();
    request.destroy();
    const closedAt = await within(held.closed, 2_000, 'the upstream connection closing');
    expect(closedAt - leftAt).toBeLessThan(1_000);
  });
});

describe('request time budget', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startFakeAnthropic();
    gateway = await startTestGateway({
      catalogYaml: catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/slow', [{ provider: 'alpha', model: 'up-slow', price: [1, 2] }])]),
      env: { SWITCHBOARD_REQUEST_TIMEOUT_MS: '300' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it.each([false, true])('an upstream slower than the budget ends in a 504 timeout_error, as Anthropic answers a request that timed out (stream: %s)', async (stream) => {
    upstream.enqueue(reply.fixture('anthropic-text', { delayMs: 5_000 }));
    const started = performance.now();
    const call = await postMessage(gateway, messageBody('test/slow', { stream }));
    const elapsed = performance.now() - started;

    expect(call.status).toBe(504);
    expect(call.body).toMatchObject({ type: 'error', error: { type: 'timeout_error', code: 504 } });
    expect(errorMessage(call).length).toBeGreaterThan(0);
    expect(call.headers.get('x-generation-id')).toMatch(/^gen_/);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('a fast upstream is unaffected by the budget', async () => {
    upstream.enqueue(reply.fixture('anthropic-text', { delayMs: 20 }));
    const call = await postMessage(gateway, messageBody('test/slow'));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
  });
});
