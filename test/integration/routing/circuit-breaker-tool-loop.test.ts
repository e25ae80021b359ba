/**
 * The circuit breaker hears the server-side tool loop's streamed steps when they end, as it hears a plain
 * stream: a step whose upstream fails after its first events (overloaded mid-stream) counts against its
 * endpoint, so three such loops open Alpha's circuit and the next request goes to Beta without trying Alpha.
 * Before, the step's success was reported at its first event and the failure never counted.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { breakerCatalogYaml, messageBody, metadataOf, postMessage, resetFakes, startBreakerUpstreams, streamMessage, WITH_METADATA } from './routing-support.ts';

const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: '3', SWITCHBOARD_CIRCUIT_COOLDOWN_MS: '20000' };
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ alpha, beta } = await startBreakerUpstreams());
  gateway = await startTestGateway({ catalogYaml: breakerCatalogYaml(alpha, beta, ['test/loop-breaker']), env: BREAKER_ENV });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => resetFakes(alpha, beta));

describe('circuit breaker and the tool loop, streamed', () => {
  it('counts a loop step that fails after its first events against its endpoint: three open the circuit', async () => {
    for (let index = 0; index < 3; index += 1) {
      // The loop's step is overloaded after its first events (a step that succeeds would reset the count).
      alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 3, status: 529 } }));
      const call = await streamMessage(gateway, messageBody('test/loop-breaker', { session_id: randomUUID(), tools: [DATETIME] }));
      expect(call.status).toBe(200);
      expect(call.events.map((event) => event.event)).toContain('message_start');
      expect(call.events.at(-1)?.event).toBe('error');
    }
    expect(alpha.requests).toHaveLength(3);

    const next = await postMessage(gateway, messageBody('test/loop-breaker', { session_id: randomUUID() }), WITH_METADATA);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    const metadata = metadataOf(next) as ReturnType<typeof metadataOf> & { circuit_open?: { provider: string }[] };
    expect(metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Beta Cloud success']);
    expect(metadata.circuit_open).toEqual([expect.objectContaining({ provider: 'Alpha Cloud' })]);
    expect(alpha.requests).toHaveLength(3);
  });
});
