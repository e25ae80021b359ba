/**
 * The circuit breaker after its cool-down (half-open), over HTTP: one failure reopens the circuit, one success
 * closes it. With two instances on one Redis both follow one state machine whichever instance sees the
 * probe: an instance that only heard of the open circuit reopens it at its first failure after the cool-down
 * (not after a full count of its own), and a success it sees closes the circuit for the instance that opened
 * it too (whose next failure then starts a new count). Without Redis one instance does the same alone.
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
import { breakerCatalogYaml, type GatewayHandle, messageBody, metadataOf, postMessage, resetFakes, startBreakerUpstreams, WITH_METADATA } from './routing-support.ts';

// Long enough for a few requests on a loaded machine while the circuit is open, short enough to wait out twice.
const COOLDOWN_MS = 5_000;
const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: '3', SWITCHBOARD_CIRCUIT_COOLDOWN_MS: String(COOLDOWN_MS) };
// A model of this run's own: its circuit's key and messages in Redis are no other run's.
const MODEL = `test/half-open-${randomUUID().slice(0, 8)}`;
const redisUrl = redisUrlForTests();
// Each test waits out one or two cool-downs (and one starts a gateway): on a loaded machine that nears 30 s.
const SLOW_TEST_MS = 90_000;

let alpha: FakeUpstream;
let beta: FakeUpstream;

function catalog(): string {
  return breakerCatalogYaml(alpha, beta, [MODEL]);
}

beforeAll(async () => {
  ({ alpha, beta } = await startBreakerUpstreams());
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => resetFakes(alpha, beta));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request (a session of its own: no pin decides the order); what was tried, and whether Alpha's circuit was open. */
async function send(gateway: GatewayHandle, alphaReply?: 'fails' | 'answers'): Promise<{ attempts: string[]; open: boolean }> {
  return (await sendFor(gateway, alphaReply)).seen;
}

/** `send`, with when the open circuit's cool-down ends (0 when none is open). */
async function sendFor(gateway: GatewayHandle, alphaReply?: 'fails' | 'answers'): Promise<{ seen: { attempts: string[]; open: boolean }; retryAt: number }> {
  if (alphaReply) alpha.enqueue(alphaReply === 'fails' ? reply.error(500) : reply.fixture('anthropic-text'));
  const call = await postMessage(gateway, messageBody(MODEL, { session_id: randomUUID() }), WITH_METADATA);
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  const metadata = metadataOf(call) as ReturnType<typeof metadataOf> & { circuit_open?: { retry_at: string }[] };
  // What Alpha was not asked for stays queued for no one.
  resetFakes(alpha);
  const seen = { attempts: metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`), open: (metadata.circuit_open?.length ?? 0) > 0 };
  return { seen, retryAt: Date.parse(metadata.circuit_open?.[0]?.retry_at ?? '') || 0 };
}

const FAILED_OVER = ['Alpha Cloud server_error', 'Beta Cloud success'];
const MOVED_LAST = { attempts: ['Beta Cloud success'], open: true };

/** Opens Alpha's circuit on `gateway` with three failures, and returns when its cool-down ends. */
async function openCircuit(gateway: GatewayHandle): Promise<number> {
  for (let index = 0; index < 3; index += 1) expect((await send(gateway, 'fails')).attempts).toEqual(FAILED_OVER);
  return movedLast(gateway);
}

/** Expects Alpha moved last on `gateway`, and returns when its cool-down ends. */
async function movedLast(gateway: GatewayHandle): Promise<number> {
  const { seen, retryAt } = await sendFor(gateway);
  expect(seen).toEqual(MOVED_LAST);
  return retryAt;
}

/** Waits out a cool-down (the time the gateway named, not the test's clock of when it began). */
const pastCooldown = (retryAt: number) => sleep(retryAt - Date.now() + 100);

/** Waits until `gateway` moves Alpha last (it heard of the open circuit through Redis), before `retryAt`. */
async function untilOpenOn(gateway: GatewayHandle, retryAt: number): Promise<void> {
  // Heard after its cool-down it would never show as open: the circuit's own end is the deadline, not a guess.
  while (!(await send(gateway)).open) {
    if (Date.now() > retryAt) throw new Error('the instance never heard of the open circuit');
    await sleep(20);
  }
}

describe('half-open circuit on one gateway without Redis', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ catalogYaml: catalog(), env: BREAKER_ENV });
  });
  afterAll(() => gateway?.close());

  it('reopens at the first failure after the cool-down, and a success closes it for a full count', { timeout: SLOW_TEST_MS }, async () => {
    await pastCooldown(await openCircuit(gateway));
    expect((await send(gateway, 'fails')).attempts).toEqual(FAILED_OVER);
    await pastCooldown(await movedLast(gateway));
    expect(await send(gateway, 'answers')).toEqual({ attempts: ['Alpha Cloud success'], open: false });
    expect((await send(gateway, 'fails')).attempts).toEqual(FAILED_OVER);
    expect(await send(gateway, 'answers')).toEqual({ attempts: ['Alpha Cloud success'], open: false });
  });
});

describe.skipIf(redisUrl === undefined)('half-open circuit shared by two instances through Redis', () => {
  let pair: GatewayPair;
  let listener: Redis;
  const heard: number[] = [];
  beforeAll(async () => {
    // Hears what the instances publish, to know when a close has gone out.
    listener = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    listener.on('message', (_channel: string, message: string) => {
      const { key, until } = JSON.parse(message) as { key: string; until: number };
      if (key === endpointKey(MODEL, 'alpha')) heard.push(until);
    });
    await listener.subscribe('switchboard:circuits');
    pair = await startGatewayPair({ catalogYaml: catalog(), env: { ...BREAKER_ENV, REDIS_URL: redisUrl as string, ...PATIENT_REDIS_ENV } });
  });
  afterAll(async () => {
    await pair?.close();
    await listener?.quit();
    const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    await redis.del(`switchboard:circuit:${endpointKey(MODEL, 'alpha')}`);
    await redis.quit();
  });

  it('reopens on the instance that only heard of the circuit at its first failure after the cool-down, for both', { timeout: SLOW_TEST_MS }, async () => {
    const retryAt = await openCircuit(pair.first);
    await untilOpenOn(pair.second, retryAt);
    await pastCooldown(retryAt);

    // The half-open probe fails on the instance that never counted a failure of its own.
    expect((await send(pair.second, 'fails')).attempts).toEqual(FAILED_OVER);
    const reopenedUntil = await movedLast(pair.second);
    await untilOpenOn(pair.first, reopenedUntil);

    // The next probe answers on that instance: closed for the one that opened it too, whose count starts again.
    await pastCooldown(reopenedUntil);
    heard.length = 0;
    const logged = pair.logs.length;
    expect(await send(pair.second, 'answers')).toEqual({ attempts: ['Alpha Cloud success'], open: false });
    await expect.poll(() => heard.includes(0), { timeout: 20_000, message: 'no instance published that the circuit closed' }).toBe(true);
    // The instance that opened it has heard the close itself (its log says so), not merely the test's subscriber.
    await expect
      .poll(() => pair.logs.slice(logged).some((line) => line.startsWith('A ') && line.includes('circuit heard from another instance') && line.includes('"closed"')), { timeout: 20_000 })
      .toBe(true);
    expect((await send(pair.first, 'fails')).attempts).toEqual(FAILED_OVER);
    expect(await send(pair.first, 'answers')).toEqual({ attempts: ['Alpha Cloud success'], open: false });
  });

  it('an instance started after the cool-down knows the circuit is half-open: its first failure reopens it', { timeout: SLOW_TEST_MS }, async () => {
    await pastCooldown(await openCircuit(pair.first));
    const newcomer = await startTestGateway({ catalogYaml: catalog(), env: { ...BREAKER_ENV, REDIS_URL: redisUrl as string, ...PATIENT_REDIS_ENV } });
    try {
      // It reads the circuits once its subscription starts: waited for in its log, not for a time.
      await expect.poll(() => newcomer.logs.some((line) => line.includes('circuits read from the share')), { timeout: 20_000, message: 'the new instance never read the circuits' }).toBe(true);
      // Before, the key had expired with the cool-down and this instance needed three failures of its own.
      expect((await send(newcomer, 'fails')).attempts).toEqual(FAILED_OVER);
      await untilOpenOn(pair.first, await movedLast(newcomer));
    } finally {
      await newcomer.close();
    }
  });
});
