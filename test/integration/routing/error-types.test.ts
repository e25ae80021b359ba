/**
 * One table from status to Anthropic error type, over HTTP: a failure gets the same `error.type` whether it
 * reaches the client as a JSON error (before the first byte) or as an in-stream `error` event (after it). An
 * upstream's `invalid_request_error` in the middle of a stream stays an `invalid_request_error`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { ALPHA_FIRST, eventPayload, messageBody, postMessage, resetFakes, startAlphaBetaGateway, streamMessage, type AlphaBetaGateway } from './routing-support.ts';

let setup: AlphaBetaGateway;
let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  setup = await startAlphaBetaGateway();
  ({ alpha, beta, gateway } = setup);
});

afterAll(() => setup?.close());

beforeEach(() => resetFakes(alpha, beta));

// Upstream status (its Anthropic error type, sent by the fake) -> what the client reads, in JSON and in a stream.
const CASES: [number, string, number][] = [
  [400, 'invalid_request_error', 400],
  [429, 'rate_limit_error', 429],
  [529, 'overloaded_error', 529],
  [413, 'request_too_large', 413],
  [504, 'timeout_error', 504],
  [500, 'api_error', 502],
];

describe('an upstream error in the middle of a stream', () => {
  it.each(CASES)('an in-stream %i becomes an error event of type %s', async (status, type) => {
    alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 4, status } }));
    const call = await streamMessage(gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(200);
    expect(call.events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error']);
    expect(eventPayload(call, 'error')).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
    expect(beta.requests).toHaveLength(0);
  });

  it('says what the upstream rejected without passing its body on', async () => {
    alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 4, status: 400, message: 'vendor-detail-4f1c' } }));
    const call = await streamMessage(gateway, messageBody('test/primary', ALPHA_FIRST));

    const error = eventPayload(call, 'error').error as { type: string; message: string };
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).not.toContain('vendor-detail-4f1c');
  });
});

describe('the same failure before the first byte', () => {
  it.each(CASES)('an upstream %i answers JSON of type %s (status %i), as the stream event would say', async (status, type, answered) => {
    alpha.enqueue(reply.error(status));
    beta.enqueue(reply.error(status));
    const call = await postMessage(gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(answered);
    expect(call.body).toMatchObject({ type: 'error', error: { type, code: answered } });
  });
});
