/**
 * Over HTTP: a client that leaves a streamed tool loop while a step's answer is under way leaves its serving
 * attempt recorded as a plain stream's is, `success` on the generation record, and not counted against the
 * endpoint: with the circuit opening at the first failure, the next request is still served by Alpha, its
 * circuit closed. Before, the step's upstream read, aborted by the client's leaving, was recorded as Alpha's
 * `timeout` and opened its circuit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { breakerCatalogYaml, messageBody, metadataOf, postMessage, resetFakes, startBreakerUpstreams, WITH_METADATA } from '#test/integration/routing/routing-support.ts';

// One failure opens the circuit: a leave counted as Alpha's timeout would send the next request to Beta.
const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: '1', SWITCHBOARD_CIRCUIT_COOLDOWN_MS: '20000', SWITCHBOARD_RECORD_FLUSH_MS: '50' };
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ alpha, beta } = await startBreakerUpstreams());
  gateway = await startTestGateway({ catalogYaml: breakerCatalogYaml(alpha, beta, ['test/loop-leave']), env: BREAKER_ENV });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => resetFakes(alpha, beta));

/** Streams `body` and leaves at the first text delta; the generation's id. */
async function leaveAtFirstDelta(body: Record<string, unknown>): Promise<string> {
  const aborter = new AbortController();
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal: aborter.signal,
  });
  expect(response.status).toBe(200);
  let delta = false;
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
    if (event.event === 'content_block_delta' && event.data.includes('"text_delta"')) {
      delta = true;
      break;
    }
  }
  expect(delta).toBe(true);
  aborter.abort();
  return response.headers.get('x-generation-id') ?? '';
}

type Attempts = { provider: string; status: string }[];

describe('a streamed tool loop the client leaves', () => {
  it('records the serving attempt as success and does not count it against the endpoint', async () => {
    // A later step: the first calls the gateway's datetime tool, the second stalls after its first text.
    alpha.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }));
    alpha.enqueue(anthropicStep({ text: 'It is noon in Paris, and a long answer follows.', usage: { input: 60, output: 6 } }, { stallAfterEvents: 4 }));
    const id = await leaveAtFirstDelta(messageBody('test/loop-leave', { session_id: randomUUID(), tools: [DATETIME] }));

    const deadline = Date.now() + 15_000;
    let record = await waitForGeneration(gateway, id);
    while (record.status !== 'cancelled' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await waitForGeneration(gateway, id);
    }
    expect(record.status).toBe('cancelled');
    expect((record.attempts as Attempts).map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Alpha Cloud success', 'Alpha Cloud success']);
    expect(alpha.requests).toHaveLength(2);

    alpha.enqueue(reply.fixture('anthropic-text'));
    const next = await postMessage(gateway, messageBody('test/loop-leave', { session_id: randomUUID() }), WITH_METADATA);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    const metadata = metadataOf(next) as ReturnType<typeof metadataOf> & { circuit_open?: unknown[] };
    expect(metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Alpha Cloud success']);
    expect(metadata.circuit_open ?? []).toEqual([]);
    expect(beta.requests).toHaveLength(0);
  });
});
