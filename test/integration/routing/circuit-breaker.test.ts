/**
 * The circuit breaker over HTTP: after three consecutive failures of Alpha (the cheaper, so usually first,
 * endpoint of `test/breaker`), Alpha is moved to the back of every plan for the cool-down, `gateway_metadata`
 * names it in `circuit_open`, and requests are served by Beta without waiting on Alpha; once the cool-down
 * ends Alpha takes its place again. With Redis the opened circuit reaches the second instance too.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpointKey } from '#src/routing/circuit-breaker/circuit-rules.ts';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { startGatewayPair, type GatewayPair } from './gateway-pair.ts';
import { breakerCatalogYaml, type GatewayHandle, messageBody, metadataOf, postMessage, resetFakes, startBreakerUpstreams, streamMessage, WITH_METADATA } from './routing-support.ts';

// Long enough for two requests on a loaded machine while the circuit is open; its end is the gateway's retry_at.
const COOLDOWN_MS = 4_000;
const SHARED_COOLDOWN_MS = 20_000;
const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: '3', SWITCHBOARD_CIRCUIT_COOLDOWN_MS: String(COOLDOWN_MS) };
const redisUrl = redisUrlForTests();

let alpha: FakeUpstream;
let beta: FakeUpstream;

function catalog(): string {
  return breakerCatalogYaml(alpha, beta, ['test/breaker']);
}

beforeAll(async () => {
  ({ alpha, beta } = await startBreakerUpstreams());
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => resetFakes(alpha, beta));

async function send(gateway: GatewayHandle) {
  // A session of its own per request: no sticky pin may decide the order here.
  const call = await postMessage(gateway, messageBody('test/breaker', { session_id: randomUUID() }), WITH_METADATA);
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  return metadataOf(call) as ReturnType<typeof metadataOf> & { circuit_open?: { model: string; provider: string; retry_at: string }[] };
}

/** Three requests on which Alpha fails with a 500 and Beta answers. */
async function failAlphaThrice(gateway: GatewayHandle): Promise<void> {
  for (let index = 0; index < 3; index += 1) {
    alpha.enqueue(reply.error(500));
    const metadata = await send(gateway);
    expect(metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
    expect(metadata.circuit_open).toBeUndefined();
  }
}

/** Expects Alpha moved last for its open circuit; returns the circuit's retry_at. */
async function expectCircuitOpen(gateway: GatewayHandle, since: number, cooldownMs = COOLDOWN_MS): Promise<number> {
  const called = alpha.requests.length;
  const metadata = await send(gateway);
  expect(metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Beta Cloud success']);
  expect(metadata.circuit_open).toEqual([{ model: 'test/breaker', provider: 'Alpha Cloud', retry_at: expect.any(String) }]);
  const retryAt = Date.parse(metadata.circuit_open?.[0]?.retry_at ?? '');
  expect(retryAt).toBeGreaterThanOrEqual(since + cooldownMs - 50);
  expect(retryAt).toBeLessThanOrEqual(Date.now() + cooldownMs);
  expect(metadata.summary).toContain('test/breaker on Alpha Cloud moved last (circuit open)');
  expect(alpha.requests.length).toBe(called);
  return retryAt;
}

describe('circuit breaker on one gateway', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ catalogYaml: catalog(), env: BREAKER_ENV });
  });
  afterAll(() => gateway?.close());

  it('moves an endpoint to the back after three consecutive failures, names it, and takes it back after the cool-down', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect((await send(gateway)).attempts.map((attempt) => attempt.provider)).toEqual(['Alpha Cloud']);
    const openedAfter = Date.now();
    await failAlphaThrice(gateway);
    await expectCircuitOpen(gateway, openedAfter);
    const retryAt = await expectCircuitOpen(gateway, openedAfter);

    // Until the time the gateway named, not the test's clock of when the circuit opened.
    await new Promise((resolve) => setTimeout(resolve, retryAt - Date.now() + 50));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const back = await send(gateway);
    expect(back.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Alpha Cloud success']);
    expect(back.circuit_open).toBeUndefined();
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` } })).text();
    expect(metrics).toMatch(/switchboard_circuit_opened_total\{provider="alpha"\} 1\b/);
  });

  it('counts a stream that fails after its first events against its endpoint: three open the circuit', async () => {
    const openedAfter = Date.now();
    for (let index = 0; index < 3; index += 1) {
      // Claude Code always streams: an endpoint overloaded mid-stream must trip its circuit like one failing at once.
      alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 3, status: 529 } }));
      const call = await streamMessage(gateway, messageBody('test/breaker', { session_id: randomUUID() }));
      expect(call.status).toBe(200);
      expect(call.events.map((event) => event.event)).toContain('message_start');
      expect(call.events.at(-1)?.event).toBe('error');
    }
    await expectCircuitOpen(gateway, openedAfter);
  });
});

describe.skipIf(redisUrl === undefined)('circuit breaker shared through Redis', () => {
  let pair: GatewayPair;
  // The opened circuit is also stored in Redis for its cool-down; a run of this file within it would start open.
  const forgetCircuit = async () => {
    const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    await redis.del(`switchboard:circuit:${endpointKey('test/breaker', 'alpha')}`);
    await redis.quit();
  };
  beforeAll(async () => {
    await forgetCircuit();
    // A cool-down the test cannot outlive on a loaded machine: the circuit must still be open when the second instance is asked.
    pair = await startGatewayPair({ catalogYaml: catalog(), env: { ...BREAKER_ENV, SWITCHBOARD_CIRCUIT_COOLDOWN_MS: String(SHARED_COOLDOWN_MS), REDIS_URL: redisUrl as string, ...PATIENT_REDIS_ENV } });
  });
  afterAll(async () => {
    await pair?.close();
    await forgetCircuit();
  });

  it('opens the circuit on the instance that never saw the failures too', async () => {
    const openedAfter = Date.now();
    await failAlphaThrice(pair.first);
    await expectCircuitOpen(pair.first, openedAfter, SHARED_COOLDOWN_MS);
    // Published through Redis: the second instance moves Alpha back well within the cool-down (it never would
    // without the share; a loaded machine may take seconds to deliver it).
    const deadline = Date.now() + SHARED_COOLDOWN_MS / 2;
    for (;;) {
      alpha.enqueue(reply.fixture('anthropic-text'));
      const metadata = await send(pair.second);
      if (metadata.circuit_open) break;
      resetFakes(alpha);
      if (Date.now() > deadline) throw new Error('the second instance never heard of the open circuit');
    }
    resetFakes(alpha);
    await expectCircuitOpen(pair.second, openedAfter, SHARED_COOLDOWN_MS);
  });
});
