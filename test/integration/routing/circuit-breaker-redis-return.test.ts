/**
 * Circuits and a Redis outage of one instance. A circuit opened by another instance meanwhile reaches it once
 * it is back, whichever of its two Redis connections (commands, and the circuits' subscription) returns first:
 * the subscription reads the stored open circuits when it starts, with the command connection, and when the
 * subscription came back first that read found the command connection still down and was never made. A
 * circuit the instance opened itself meanwhile reaches the others once it is back (it was never published).
 * Either way the others kept trying the failing endpoint first for the rest of its cool-down. A circuit
 * another instance closed meanwhile closes on it too (it kept the recovered endpoint last until its cool-down).
 */
import { randomUUID } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointKey } from '#src/routing/circuit-breaker/circuit-rules.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, metadataOf, modelYaml, postMessage, WITH_METADATA, type GatewayHandle } from './routing-support.ts';

const redisUrl = redisUrlForTests();
// A model of this run's own: its circuit's key in Redis is no other run's.
const MODEL = `test/redis-return-${randomUUID().slice(0, 8)}`;
const OTHER_MODEL = `${MODEL}-other`;
const CLOSED_MODEL = `${MODEL}-closed`;
const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: '3', SWITCHBOARD_CIRCUIT_COOLDOWN_MS: '60000', ...PATIENT_REDIS_ENV };
// The gateway's command connection names itself `switchboard` (CLIENT SETNAME, its first command).
const COMMAND_CONNECTION = '$11\r\nswitchboard\r\n';
// How long an instance back on Redis may take to act on what it missed: a third of the cool-down, which it
// would otherwise wait out in full (before the fixes these tests keep), yet seconds on a loaded machine.
const SETTLE_MS = 20_000;

/** A proxy to Redis that can be cut, and can keep the gateway's command connection waiting once it is back. */
async function startRedisGate(target: URL) {
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  let server: Server | undefined;
  let holdCommands = false;
  const subscribers: string[] = [];
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const created = createServer((client) => {
        track(client);
        client.once('data', (first: Buffer) => {
          client.pause();
          const pass = () => {
            if (client.destroyed) return;
            const upstream = connect(Number(target.port), target.hostname);
            track(upstream);
            upstream.write(first);
            client.pipe(upstream);
            upstream.pipe(client);
            client.on('close', () => upstream.destroy());
            upstream.on('close', () => client.destroy());
            client.resume();
          };
          const text = first.toString('latin1');
          if (text.includes(COMMAND_CONNECTION) && holdCommands) return void waiting.push(pass);
          if (text.includes('switchboard-circuits')) subscribers.push('circuits');
          pass();
        });
      });
      created.once('error', reject);
      created.listen(port, '127.0.0.1', () => {
        server = created;
        resolve((created.address() as { port: number }).port);
      });
    });
  const port = await listen(0);
  return {
    url: `redis://127.0.0.1:${port}`,
    subscribers,
    async down() {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    /** Accepts connections again, keeping the command connection waiting until `release`. */
    async upSubscriptionsFirst() {
      holdCommands = true;
      await listen(port);
    },
    release() {
      holdCommands = false;
      for (const pass of waiting.splice(0)) pass();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server?.close();
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = SETTLE_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function redisUp(gateway: TestGateway): Promise<boolean> {
  const metrics = await (await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` } })).text();
  return /^switchboard_redis_up 1$/m.test(metrics);
}

describe.skipIf(redisUrl === undefined)('a circuit opened while an instance was away from Redis', () => {
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let gate: Awaited<ReturnType<typeof startRedisGate>>;
  let opener: TestGateway;
  let away: TestGateway;
  const circuitKey = `switchboard:circuit:${endpointKey(MODEL, 'alpha')}`;
  const otherCircuitKey = `switchboard:circuit:${endpointKey(OTHER_MODEL, 'alpha')}`;
  const closedCircuitKey = `switchboard:circuit:${endpointKey(CLOSED_MODEL, 'alpha')}`;

  beforeAll(async () => {
    [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') })]);
    const catalog = catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [
        modelYaml(MODEL, [
          { provider: 'alpha', model: 'up-return-alpha', price: [0.001, 0.001] },
          { provider: 'beta', model: 'up-return-beta', price: [50, 50] },
        ]),
        modelYaml(OTHER_MODEL, [
          { provider: 'alpha', model: 'up-return-other-alpha', price: [0.001, 0.001] },
          { provider: 'beta', model: 'up-return-other-beta', price: [50, 50] },
        ]),
        modelYaml(CLOSED_MODEL, [
          { provider: 'alpha', model: 'up-return-closed-alpha', price: [0.001, 0.001] },
          { provider: 'beta', model: 'up-return-closed-beta', price: [50, 50] },
        ]),
      ],
    );
    gate = await startRedisGate(new URL(redisUrl as string));
    opener = await startTestGateway({ catalogYaml: catalog, env: { ...BREAKER_ENV, REDIS_URL: redisUrl as string } });
    away = await startTestGateway({ catalogYaml: catalog, env: { ...BREAKER_ENV, REDIS_URL: gate.url } });
  });
  afterAll(async () => {
    await Promise.all([opener?.close(), away?.close()]);
    gate?.close();
    await Promise.all([alpha?.close(), beta?.close()]);
    const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    await redis.del(circuitKey, otherCircuitKey, closedCircuitKey);
    await redis.quit();
  });

  async function send(gateway: GatewayHandle, model = MODEL) {
    const call = await postMessage(gateway, messageBody(model, { session_id: randomUUID() }), WITH_METADATA);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const metadata = metadataOf(call) as ReturnType<typeof metadataOf> & { circuit_open?: unknown[] };
    return { attempts: metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`), open: (metadata.circuit_open?.length ?? 0) > 0 };
  }

  it('is read from Redis when the subscription returns before the command connection', { timeout: 90_000 }, async () => {
    await until(() => redisUp(away), 'the second instance to connect to Redis');
    await gate.down();
    await until(async () => !(await redisUp(away)), 'the second instance to lose Redis');

    for (let index = 0; index < 3; index += 1) {
      alpha.enqueue(reply.error(500));
      expect((await send(opener)).attempts).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
    }
    expect(await send(opener)).toEqual({ attempts: ['Beta Cloud success'], open: true });
    const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    await until(async () => (await redis.exists(circuitKey)) === 1, 'the open circuit stored in Redis');
    await redis.quit();

    gate.subscribers.length = 0;
    await gate.upSubscriptionsFirst();
    await until(() => gate.subscribers.length > 0, 'the circuits subscription to reconnect');
    // Its subscription is back (and would read the circuits now); the command connection follows a moment later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    gate.release();
    await until(() => redisUp(away), 'the second instance to reconnect to Redis');

    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      alpha.enqueue(reply.fixture('anthropic-text'));
      const seen = await send(away);
      alpha.clear();
      if (seen.open) break;
      expect(seen.attempts, 'the instance tried the endpoint whose circuit is open').toEqual(['Alpha Cloud success']);
      if (Date.now() > deadline) throw new Error('the instance back on Redis never read the circuit opened while it was away');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await send(away)).toEqual({ attempts: ['Beta Cloud success'], open: true });
  });

  it('publishes a circuit the instance opened while away from Redis once it is back', { timeout: 90_000 }, async () => {
    await until(() => redisUp(away), 'the second instance to connect to Redis');
    await gate.down();
    await until(async () => !(await redisUp(away)), 'the second instance to lose Redis');
    for (let index = 0; index < 3; index += 1) {
      alpha.enqueue(reply.error(500));
      expect((await send(away, OTHER_MODEL)).attempts).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
    }
    expect(await send(away, OTHER_MODEL)).toEqual({ attempts: ['Beta Cloud success'], open: true });

    await gate.upSubscriptionsFirst();
    gate.release();
    await until(() => redisUp(away), 'the second instance to reconnect to Redis');
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      alpha.enqueue(reply.fixture('anthropic-text'));
      const seen = await send(opener, OTHER_MODEL);
      alpha.clear();
      if (seen.open) break;
      expect(seen.attempts, 'the other instance tried the endpoint whose circuit is open').toEqual(['Alpha Cloud success']);
      if (Date.now() > deadline) throw new Error('the circuit opened while its instance was away from Redis never reached the other instance');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('closes a circuit another instance closed while it was away from Redis', { timeout: 90_000 }, async () => {
    await until(() => redisUp(away), 'the second instance to connect to Redis');
    for (let index = 0; index < 3; index += 1) {
      alpha.enqueue(reply.error(500));
      expect((await send(opener, CLOSED_MODEL)).attempts).toEqual(['Alpha Cloud server_error', 'Beta Cloud success']);
    }
    await until(async () => (await send(away, CLOSED_MODEL)).open, 'the second instance to hear of the open circuit');

    await gate.down();
    await until(async () => !(await redisUp(away)), 'the second instance to lose Redis');
    // Beta fails on the opener, Alpha (tried last) answers: its circuit closes, in Redis too.
    beta.enqueue(reply.error(500));
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect((await send(opener, CLOSED_MODEL)).attempts).toEqual(['Beta Cloud server_error', 'Alpha Cloud success']);
    const redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
    await until(async () => (await redis.exists(closedCircuitKey)) === 0, 'the closed circuit gone from Redis');
    await redis.quit();

    await gate.upSubscriptionsFirst();
    gate.release();
    await until(() => redisUp(away), 'the second instance to reconnect to Redis');
    // Before, it kept Alpha at the back of its plans for the rest of the minute's cool-down.
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      alpha.enqueue(reply.fixture('anthropic-text'));
      const seen = await send(away, CLOSED_MODEL);
      alpha.clear();
      if (!seen.open) {
        expect(seen.attempts).toEqual(['Alpha Cloud success']);
        break;
      }
      expect(seen.attempts, 'the instance kept the closed circuit open').toEqual(['Beta Cloud success']);
      if (Date.now() > deadline) throw new Error('the instance back on Redis kept open a circuit closed while it was away');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
