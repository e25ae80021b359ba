/**
 * Sticky sessions over HTTP. Test model `test/sticky` runs on Alpha (50,000 times cheaper, so the
 * price-weighted spread tries it first; the other order has odds of ~1e-8) and Beta. A session is pinned to
 * Beta by making Alpha fail once; afterwards both are healthy, so only the pin can send the session to Beta.
 * First on one instance with the in-process store, then across two instances sharing Redis and a database.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { stickyKey } from '#src/routing/sticky/pin-key.ts';
import { STICKY_KEY_PREFIX } from '#src/routing/sticky/redis-pin-store.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { startGatewayPair, type GatewayPair } from './gateway-pair.ts';
import {
  anthropicProviderYaml,
  catalogYaml,
  messageBody,
  metadataOf,
  modelYaml,
  postMessage,
  resetFakes,
  WITH_METADATA,
  type GatewayHandle,
} from './routing-support.ts';

const REDIS_URL = process.env.REDIS_URL;

let alpha: FakeUpstream;
let beta: FakeUpstream;

function catalog(): string {
  return catalogYaml(
    [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
    [
      modelYaml('test/sticky', [
        { provider: 'alpha', model: 'up-sticky-alpha', price: [0.001, 0.001] },
        { provider: 'beta', model: 'up-sticky-beta', price: [50, 50] },
      ]),
    ],
  );
}

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
});
afterAll(async () => {
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => resetFakes(alpha, beta));

/** Sends one request of a session and returns who served it and how the plan was ordered. */
async function send(gateway: GatewayHandle, extra: Record<string, unknown>, headers: Record<string, string> = {}) {
  const call = await postMessage(gateway, messageBody('test/sticky', extra), { ...WITH_METADATA, ...headers });
  return { status: call.status, provider: call.body.provider, strategy: call.status === 200 ? metadataOf(call).strategy : undefined, call };
}

/** Pins a session to Beta: Alpha fails once, Beta answers. */
async function pinToBeta(gateway: GatewayHandle, extra: Record<string, unknown>, headers: Record<string, string> = {}): Promise<void> {
  alpha.enqueue(reply.error(529));
  beta.enqueue(reply.fixture('anthropic-text'));
  const pinned = await send(gateway, extra, headers);
  expect(pinned, JSON.stringify(pinned.call.body)).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'price-weighted' });
  resetFakes(alpha, beta);
}

describe('sticky sessions in one instance (in-process pins)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ catalogYaml: catalog() });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('a session stays on the provider that served it while the cheaper one is healthy again', async () => {
    const session = randomUUID();
    await pinToBeta(gateway, { session_id: session });
    beta.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));

    expect(await send(gateway, { session_id: session })).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(await send(gateway, { session_id: session })).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);
  });

  it('another session is not affected: it goes to the cheaper provider', async () => {
    await pinToBeta(gateway, { session_id: randomUUID() });
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(gateway, { session_id: randomUUID() })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'price-weighted' });
  });

  it('the x-session-id header names the same session; a body session_id wins over it', async () => {
    const session = randomUUID();
    await pinToBeta(gateway, {}, { 'x-session-id': session });
    beta.enqueue(reply.fixture('anthropic-text'));
    expect(await send(gateway, { session_id: session })).toMatchObject({ provider: 'Beta Cloud', strategy: 'sticky' });

    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(gateway, { session_id: randomUUID() }, { 'x-session-id': session })).toMatchObject({ provider: 'Alpha Cloud', strategy: 'price-weighted' });
  });

  it('a conversation without any session id keeps its provider as it grows (first messages hashed)', async () => {
    const opening = `Plan a trip ${randomUUID()}`;
    const system = 'You are a travel agent.';
    await pinToBeta(gateway, { system, messages: [{ role: 'user', content: opening }] });
    beta.enqueue(reply.fixture('anthropic-text'));
    const grown = {
      system,
      messages: [
        { role: 'user', content: opening },
        { role: 'assistant', content: 'Where to?' },
        { role: 'user', content: 'Lisbon, in May.' },
      ],
    };
    expect(await send(gateway, grown)).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);
  });

  it('the pin is dropped when the pinned provider fails, so the next request re-routes', async () => {
    const session = randomUUID();
    await pinToBeta(gateway, { session_id: session });
    beta.enqueue(reply.error(529));
    alpha.enqueue(reply.error(529));
    const failed = await send(gateway, { session_id: session });
    expect(failed.status).toBe(529);
    expect(beta.requests).toHaveLength(1);

    resetFakes(alpha, beta);
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(gateway, { session_id: session })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'price-weighted' });
    expect(beta.requests).toHaveLength(0);
  });

  it('allow_fallbacks: false keeps a pinned session on its provider, the one provider it then tries', async () => {
    const session = randomUUID();
    await pinToBeta(gateway, { session_id: session });
    beta.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    const strict = { session_id: session, provider: { allow_fallbacks: false } };

    expect(await send(gateway, strict)).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(await send(gateway, strict)).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);

    // Still one provider only: the pinned one failing is the answer, the cheaper one is not tried.
    resetFakes(alpha, beta);
    beta.enqueue(reply.error(529));
    expect((await send(gateway, strict)).status).toBe(529);
    expect(alpha.requests).toHaveLength(0);
  });

  it('an explicit provider.order wins over the pin', async () => {
    const session = randomUUID();
    await pinToBeta(gateway, { session_id: session });
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(gateway, { session_id: session, provider: { order: ['alpha'] } })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'order' });
  });
});

// Runs whenever REDIS_URL is set; in CI (CI=true) a missing REDIS_URL fails here instead of skipping.
describe.skipIf(!REDIS_URL && process.env.CI !== 'true')('sticky sessions across two instances sharing Redis', () => {
  let pair: GatewayPair;
  let redis: Redis;

  beforeAll(async () => {
    if (!REDIS_URL) throw new Error('CI=true but REDIS_URL is not set: the shared sticky-session tests must run in CI');
    // A Redis that cannot be reached would only make pins silently absent; say so plainly instead.
    const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0 });
    try {
      await probe.connect();
      expect(await probe.ping()).toBe('PONG');
    } finally {
      probe.disconnect();
    }
    pair = await startGatewayPair({ catalogYaml: catalog(), env: { REDIS_URL, ...PATIENT_REDIS_ENV } });
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await pair?.close();
    await redis?.quit();
  });
  /** Whether the session's pin is in Redis (the key the gateway stores it under). */
  const pinned = async (session: string) => {
    const request = messageBody('test/sticky', { session_id: session }) as unknown as MessageRequest;
    return (await redis.exists(STICKY_KEY_PREFIX + stickyKey(request, { id: session, source: 'session_id' }, { accountId: pair.first.account_id, workspaceId: pair.first.workspace_id }).key)) === 1;
  };

  it('a session pinned on instance A is served by the same provider on instance B', async () => {
    const session = randomUUID();
    await pinToBeta(pair.first, { session_id: session });
    beta.enqueue(reply.fixture('anthropic-text'));
    const onSecond = await send(pair.second, { session_id: session });

    expect(onSecond, JSON.stringify(onSecond.call.body)).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);
    expect(beta.requests).toHaveLength(1);
  });

  it('instance B without the pin would have chosen the cheaper provider (control)', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(pair.second, { session_id: randomUUID() })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'price-weighted' });
  });

  it('a pin dropped on instance B after its provider failed is gone on instance A too', async () => {
    const session = randomUUID();
    await pinToBeta(pair.first, { session_id: session });
    await expect.poll(() => pinned(session), { timeout: 15_000 }).toBe(true);
    beta.enqueue(reply.error(529));
    alpha.enqueue(reply.error(529));
    expect((await send(pair.second, { session_id: session })).status).toBe(529);
    // The drop is not awaited by the request: wait for it to land in Redis, not for a clock.
    await expect.poll(() => pinned(session), { timeout: 15_000 }).toBe(false);

    resetFakes(alpha, beta);
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(pair.first, { session_id: session })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'price-weighted' });
  });
  it("a failure seen late on instance A does not drop the pin instance B wrote meanwhile (the session moved on)", async () => {
    const session = randomUUID();
    await pinToBeta(pair.first, { session_id: session });
    // A reads the pin (Beta) and waits on Beta; meanwhile B's request sees Beta fail and re-pins to Alpha.
    let releaseA!: () => void;
    const held = new Promise<void>((resolve) => (releaseA = resolve));
    beta.enqueue(reply.error(529, { until: held }), reply.error(529));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const onFirst = send(pair.first, { session_id: session, provider: { allow_fallbacks: false } });
    await expect.poll(() => beta.requests.length).toBe(1);
    expect(await send(pair.second, { session_id: session })).toMatchObject({ status: 200, provider: 'Alpha Cloud' });
    releaseA();
    expect((await onFirst).status).toBe(529);

    // A's stale failure of Beta left the newer pin alone: the session stays on Alpha by its pin.
    resetFakes(alpha, beta);
    alpha.enqueue(reply.fixture('anthropic-text'));
    // The drop is not awaited by the request; give it time to land (before the fix it deleted Alpha's pin).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await send(pair.first, { session_id: session })).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'sticky' });
  });
});
