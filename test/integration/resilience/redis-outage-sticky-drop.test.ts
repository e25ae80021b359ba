/**
 * A sticky pin dropped while Redis was away stays dropped once it is back. A session pinned to Beta in Redis
 * keeps its pins in the process during an outage; when Beta fails there, its pin is dropped and Alpha serves.
 * Before the fix the pin Redis still held from before the outage was read again on the return, and the
 * session went back to Beta, the provider that had failed. Model `test/outage-drop` runs on Alpha (50,000
 * times cheaper, so tried first without a pin) and Beta, so only a pin can send the session to Beta.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { stickyKey } from '#src/routing/sticky/pin-key.ts';
import { STICKY_KEY_PREFIX } from '#src/routing/sticky/redis-pin-store.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { startTcpProxy, type TcpProxy } from '#test/helpers/tcp-proxy.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, metadataOf, modelYaml, postMessage, WITH_METADATA } from '#test/integration/routing/routing-support.ts';

const redisUrl = redisUrlForTests();
const MODEL = 'test/outage-drop';

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(redisUrl === undefined)('a sticky pin dropped during a Redis outage', () => {
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let proxy: TcpProxy;
  let gateway: TestGateway;

  beforeAll(async () => {
    [alpha, beta] = await Promise.all([
      startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') }),
      startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') }),
    ]);
    const target = new URL(redisUrl as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const catalog = catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [
        modelYaml(MODEL, [
          { provider: 'alpha', model: 'up-outage-drop-alpha', price: [0.001, 0.001] },
          { provider: 'beta', model: 'up-outage-drop-beta', price: [50, 50] },
        ]),
      ],
    );
    // No circuit breaker: only the pin orders the providers.
    gateway = await startTestGateway({ catalogYaml: catalog, env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, SWITCHBOARD_CIRCUIT_FAILURES: '0', ...PATIENT_REDIS_ENV } });
  });
  afterAll(async () => {
    await gateway?.close();
    await proxy?.close();
    await Promise.all([alpha?.close(), beta?.close()]);
  });

  async function redisUp(): Promise<boolean> {
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` } })).text();
    return /^switchboard_redis_up 1$/m.test(metrics);
  }

  /** One request of the session: the attempts it made, as `<provider> <status>`. */
  async function send(session: string): Promise<string[]> {
    const call = await postMessage(gateway, messageBody(MODEL, { session_id: session }), WITH_METADATA);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    return metadataOf(call).attempts.map((attempt) => `${attempt.provider} ${attempt.status}`);
  }

  it('is not read back from Redis when it returns', { timeout: 90_000 }, async () => {
    const session = `outage-drop-${randomUUID()}`;
    await until(redisUp, 'the gateway to connect to Redis');

    // Pinned to Beta in Redis: Alpha fails once. The pin is written after the answer: wait until Redis has it,
    // so that no write is under way when Redis goes (one cut short lands in the process instead).
    alpha.enqueue(reply.error(500));
    expect(await send(session)).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
    const key = STICKY_KEY_PREFIX + stickyKey(messageBody(MODEL, { session_id: session }) as MessageRequest, { id: session, source: 'session_id' }, { accountId: gateway.account_id, workspaceId: gateway.workspace_id }).key;
    const inspector = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    try {
      await until(async () => (await inspector.get(key))?.includes('"provider":"beta"') === true, 'the pin to reach Redis');

      await proxy.down();
      await until(async () => !(await redisUp()), 'the gateway to lose Redis');
      // Pinned to Beta in the process too, the same way.
      alpha.enqueue(reply.error(500));
      expect(await send(session)).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
      // Beta fails: its pin is dropped and Alpha serves.
      beta.enqueue(reply.error(500));
      expect(await send(session)).toEqual(['Beta Cloud server_error', 'Alpha Cloud success']);

      await proxy.up();
      await until(redisUp, 'the gateway to reconnect to Redis');
      // Beta is healthy again, yet only a stale pin would send the session there.
      expect(await send(session)).toEqual(['Alpha Cloud success']);
      expect(await send(session)).toEqual(['Alpha Cloud success']);
    } finally {
      await inspector.del(key);
      inspector.disconnect();
    }
  });
});
