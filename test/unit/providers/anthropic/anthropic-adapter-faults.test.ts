import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { anthropicAdapter } from '#src/providers/anthropic/anthropic-adapter.ts';
import { configureUpstreamHttp } from '#src/providers/http-client.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { PROVIDER_KEY, attemptCall, collectUntilError } from './attempt-call.ts';

let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
beforeEach(() => fake.clear());
afterAll(() => fake.close());

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

const operations = {
  generate: () => anthropicAdapter.generate(attemptCall(fake)),
  stream: () => anthropicAdapter.stream(attemptCall(fake)),
  countTokens: () => anthropicAdapter.countTokens({ ...attemptCall(fake), request: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] } }),
};

describe('upstream HTTP errors', () => {
  it.each([
    [429, 'rate_limited', 429, true, true],
    [500, 'server_error', 502, true, true],
    [502, 'server_error', 502, true, true],
    [503, 'overloaded', 529, true, true],
    [504, 'timeout', 504, true, true],
    [529, 'overloaded', 529, true, true],
    [401, 'authentication', 502, false, true],
    [403, 'authentication', 502, false, true],
    [404, 'not_found', 502, false, true],
    [400, 'invalid_request', 400, false, false],
    [413, 'request_too_large', 413, false, true],
  ] as const)('maps upstream %i to %s (gateway status %i, retryable %s, fallback %s)', async (status, kind, gatewayStatus, retryable, fallbackEligible) => {
    for (const operation of ['generate', 'stream'] as const) {
      fake.enqueue(reply.error(status));
      const error = await failureOf(operations[operation]());
      expect(error).toMatchObject({ provider: 'anthropic', kind, upstreamStatus: status, status: gatewayStatus, retryable, fallbackEligible });
      expect(error.rawBody).toContain('"type":"error"');
    }
  });

  it('keeps the upstream body and key out of the public message of a server error', async () => {
    fake.enqueue(reply.error(500, { message: `internal stack trace, key ${PROVIDER_KEY}` }));
    const error = await failureOf(operations.generate());
    expect(error.publicMessage).toBe('Upstream anthropic failed: server error');
    expect(error.message).toBe(error.publicMessage);
  });

  it('keeps the vendor message of an invalid request, so clients can act on "prompt is too long"', async () => {
    fake.enqueue(reply.error(400, { message: 'prompt is too long: 210000 tokens > 200000 maximum' }));
    const error = await failureOf(operations.generate());
    expect(error.publicMessage).toBe('Invalid request parameters: anthropic rejected the request: prompt is too long: 210000 tokens > 200000 maximum');
  });

  it('never echoes the provider key in the public message, even inside a vendor message', async () => {
    fake.enqueue(reply.error(400, { message: `invalid header value ${PROVIDER_KEY} for x-api-key` }));
    const error = await failureOf(operations.generate());
    expect(error.publicMessage).not.toContain(PROVIDER_KEY);
    expect(error.publicMessage).toContain('anthropic rejected the request');
  });

  it('keeps only a vendor message, never the raw body, when the body is not the vendor shape', async () => {
    fake.enqueue(reply.error(400, { body: { detail: 'raw upstream body with internals' } }));
    const error = await failureOf(operations.generate());
    expect(error.publicMessage).toBe('Invalid request parameters: anthropic rejected the request');
  });

  it.each(['generate', 'stream'] as const)('%s turns a connection reset into a retryable connection error', async (operation) => {
    fake.enqueue(reply.reset());
    const error = await failureOf(operations[operation]());
    expect(error).toMatchObject({ kind: 'connection', status: 502, retryable: true, fallbackEligible: true });
    expect(error.publicMessage).toBe('Upstream anthropic failed: connection');
  });

  it('turns a refused connection into a retryable connection error', async () => {
    const gone = await startFakeAnthropic();
    await gone.close();
    const error = await failureOf(anthropicAdapter.countTokens({ ...attemptCall(gone), request: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] } }));
    expect(error).toMatchObject({ kind: 'connection', retryable: true, fallbackEligible: true });
  });

  it.each([
    ['without a count', '{"tokens":3}'],
    ['with a body that is not JSON', 'not json'],
  ])('turns a count_tokens answer %s into a malformed_response', async (_name, body) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await failureOf(anthropicAdapter.countTokens({ ...attemptCall(fake), baseUrl, request: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] } }));
      expect(error).toMatchObject({ kind: 'malformed_response', retryable: true });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('timeouts and cancellation', () => {
  beforeAll(() => configureUpstreamHttp({ headersTimeoutMs: 300, bodyTimeoutMs: 300 }));
  afterAll(() => configureUpstreamHttp({}));
  afterEach(() => fake.clear());

  const started = () => performance.now();

  it('fails with a timeout when the upstream sends no headers in time', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { delayMs: 5_000 }));
    const begin = started();
    // 8 tokens need less than the 300 ms floor: a JSON answer's wait grows with max_tokens beyond it.
    const call = attemptCall(fake);
    const error = await failureOf(anthropicAdapter.generate({ ...call, request: { ...call.request, max_tokens: 8 } }));
    expect(error).toMatchObject({ kind: 'timeout', status: 504, retryable: true, fallbackEligible: true });
    expect(performance.now() - begin).toBeLessThan(3_000);
  });

  it('fails with a timeout when a JSON body stalls after the headers', async () => {
    fake.enqueue(reply.fixture('anthropic-text.json', { stallAfterEvents: 0 }));
    const error = await failureOf(operations.generate());
    expect(error).toMatchObject({ kind: 'timeout', status: 504, retryable: true });
  });

  it('fails with a timeout, never a hang, when a stream stalls mid-way', async () => {
    fake.enqueue(reply.fixture('anthropic-text', { stallAfterEvents: 3 }));
    const begin = started();
    const { events } = await anthropicAdapter.stream(attemptCall(fake));
    const outcome = await collectUntilError(events);
    expect(outcome.events).toHaveLength(3);
    expect(outcome.error).toMatchObject({ kind: 'timeout', status: 504, retryable: true, fallbackEligible: true });
    expect(performance.now() - begin).toBeLessThan(3_000);
  });

  it('stops at once when the attempt is aborted', async () => {
    const controller = new AbortController();
    fake.enqueue(reply.fixture('anthropic-text', { delayMs: 5_000 }));
    const pending = failureOf(anthropicAdapter.generate(attemptCall(fake, { signal: controller.signal })));
    setTimeout(() => controller.abort(new Error('client disconnected')), 20);
    const begin = started();
    const error = await pending;
    expect(performance.now() - begin).toBeLessThan(250);
    expect(error.retryable).toBe(true);
  });

  it('stops a running stream when the attempt is aborted', async () => {
    const controller = new AbortController();
    fake.enqueue(reply.fixture('anthropic-text', { chunkDelayMs: 50 }));
    const { events } = await anthropicAdapter.stream(attemptCall(fake, { signal: controller.signal }));
    setTimeout(() => controller.abort(AbortSignal.timeout(0).reason ?? new Error('timeout')), 60);
    const outcome = await collectUntilError(events);
    expect(outcome.events.length).toBeLessThan(12);
    expect(outcome.error).toBeInstanceOf(UpstreamError);
  });
});

