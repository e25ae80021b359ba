/**
 * `SWITCHBOARD_WORKERS=2` stopped by a signal to its whole process group, as Ctrl-C in a terminal and
 * systemd's default `KillMode=control-group` deliver it: the primary and both workers get the signal at once.
 * That is one signal, so a stream in flight still gets the grace period and finishes; a second signal to the
 * group ends it at once with the in-band `overloaded_error`. On PostgreSQL (workers cannot share PGlite).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { limitsCatalog, streamWithKey } from '#test/integration/limits/limits-support.ts';

const DATABASE_URL = process.env.DATABASE_URL;

let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** Two workers in a process group of their own, a trickling stream in flight; returns what the test needs. */
async function workersWithStreamInFlight(): Promise<{ gateway: GatewayProcess; stream: ReturnType<typeof streamWithKey> }> {
  const upstream: FakeUpstream = await startFakeAnthropic();
  // About three seconds of events: well within the grace period, long enough to be in flight at the signal.
  upstream.enqueue(reply.fixture('anthropic-text', { chunkDelayMs: 300 }));
  const store: ProcessStore = await processStore('postgres');
  let gateway: GatewayProcess | undefined;
  cleanup = async () => {
    if (gateway && gateway.child.exitCode === null) gateway.signalGroup('SIGKILL');
    await gateway?.exited;
    await store.drop();
    await upstream.close();
  };
  gateway = await startGatewayProcess({
    env: { ...store.env, SWITCHBOARD_WORKERS: '2', SWITCHBOARD_SHUTDOWN_GRACE_MS: '15000' },
    catalogYaml: limitsCatalog(upstream),
    processGroup: true,
  });
  const { key } = await issueInferenceKey(gateway);
  const stream = streamWithKey(gateway, key);
  await expect.poll(() => upstream.requests.length, { timeout: 10_000 }).toBe(1);
  return { gateway, stream };
}

describe.skipIf(!DATABASE_URL && process.env.CI !== 'true')('workers stopped by a signal to their process group', () => {
  it('lets a stream in flight finish within the grace period, and exits 0', async () => {
    if (!DATABASE_URL) throw new Error('CI=true but DATABASE_URL is not set: the workers test must run in CI');
    const { gateway, stream } = await workersWithStreamInFlight();
    gateway.signalGroup('SIGTERM');
    const { status, events } = await stream;
    expect(status).toBe(200);
    expect(events.map((event) => event.event)).not.toContain('error');
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(await gateway.exited).toBe(0);
    expect(gateway.logs.join('\n')).not.toContain('second signal');
  }, 90_000);

  it('ends the stream at once with overloaded_error on a second signal to the group', async () => {
    if (!DATABASE_URL) throw new Error('CI=true but DATABASE_URL is not set: the workers test must run in CI');
    const { gateway, stream } = await workersWithStreamInFlight();
    gateway.signalGroup('SIGTERM');
    await expect.poll(() => gateway.logs.some((line) => line.includes('"message":"stopping"')), { timeout: 10_000 }).toBe(true);
    gateway.signalGroup('SIGTERM');
    const { events } = await stream;
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({ error: { type: 'overloaded_error' } });
    expect(await gateway.exited).toBe(0);
  }, 90_000);
});
