/**
 * SIGTERM on a real gateway process with an OTLP destination still holding generations: the last requests'
 * spans are sent before the process exits, within the flush budget (what is left of the shutdown grace, 1 to
 * 5 s); an export or a webhook's delivery gets one try, none is retried; and a destination that hangs holds
 * the shutdown no longer than that budget, its drop logged. The client is the Anthropic SDK against a fake
 * Anthropic upstream; the collector on 127.0.0.1 decodes each export (OTLP/protobuf) to find which generations
 * it carried.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { limitsCatalog, startAnsweringUpstream } from '#test/integration/limits/limits-support.ts';
import { receivedSpans, TRACES_PATH } from '#test/integration/observability/destination-receivers.ts';

// The flush budget is what is left of it once the drain ends (no request is in flight then): about this much.
const GRACE_MS = 3_000;
// How long the collector holds the export in flight at the signal: the generations behind it are still
// queued when the broadcaster closes, well after the records and spending were written.
const HOLD_MS = 1_500;
// Requests made while that export is held, right before the signal.
const LAST_REQUESTS = 20;
const BODY = { model: 'test/limited', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }] };

interface Running {
  gateway: GatewayProcess;
  collector: CaptureServer;
  client: Anthropic;
}

let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/**
 * A gateway process sending to a receiver configured in its file (an OTLP collector, or a webhook), and an SDK
 * client on its inference key.
 */
async function start(kind: 'otlp' | 'webhook' = 'otlp', env: Record<string, string> = {}): Promise<Running> {
  const upstream: FakeUpstream = await startAnsweringUpstream();
  const collector = await startCaptureServer({ status: 200, body: {} });
  const store: ProcessStore = await processStore('pglite');
  let gateway: GatewayProcess | undefined;
  cleanup = async () => {
    await gateway?.stop('SIGKILL');
    await Promise.all([store.drop(), upstream.close(), collector.close()]);
  };
  const destination =
    kind === 'otlp'
      ? `{ name: flush, kind: otlp, endpoint: "${collector.url}${TRACES_PATH}", protocol: http/protobuf }`
      : `{ name: flush, kind: webhook, endpoint: "${collector.url}/hook", signing_secret: "a-signing-secret-of-some-length" }`;
  const destinations = ['observability:', '  destinations:', `    - ${destination}`, ''].join('\n');
  gateway = await startGatewayProcess({ env: { ...store.env, SWITCHBOARD_SHUTDOWN_GRACE_MS: String(GRACE_MS), ...env }, catalogYaml: `${limitsCatalog(upstream)}${destinations}` });
  const { key } = await issueInferenceKey(gateway);
  const client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: key, apiKey: null, maxRetries: 0 });
  return { gateway, collector, client };
}

/** One call through the SDK; its generation id. */
async function call(client: Anthropic): Promise<string> {
  const { response } = await client.messages.create(BODY).withResponse();
  return response.headers.get('x-generation-id') ?? '';
}

/** The generation ids the collector has received spans of. */
function delivered(collector: CaptureServer): Set<string> {
  return new Set(receivedSpans(collector, TRACES_PATH).map((span) => String(span.attributes['switchboard.generation.id'])));
}

/** The first warm-up generation's spans arrived: the exporter is loaded and its connection open. */
async function warmUp({ client, collector }: Running): Promise<string> {
  const id = await call(client);
  await collector.waitFor(1);
  expect(delivered(collector).has(id)).toBe(true);
  return id;
}

describe('the broadcast flush at shutdown', () => {
  it('sends the generations still queued at SIGTERM before the process exits', async () => {
    const running = await start();
    const { gateway, collector, client } = running;
    const first = await warmUp(running);
    // The next export is held: what comes after it waits in the queue.
    collector.answers.push({ status: 200, body: {}, delayMs: HOLD_MS });
    const held = await Promise.all(Array.from({ length: 5 }, () => call(client)));
    await collector.waitFor(2);
    const last = await Promise.all(Array.from({ length: LAST_REQUESTS }, () => call(client)));

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const stoppedIn = Date.now() - signalledAt;

    const received = delivered(collector);
    expect([first, ...held, ...last].filter((id) => !received.has(id))).toEqual([]);
    expect(gateway.logs.join('\n')).not.toContain('generations dropped');
    // The held export's answer, then one export of the rest: well within the budget.
    expect(stoppedIn).toBeLessThan(GRACE_MS + 2_000);
  }, 90_000);

  it('gives an OTLP export at the flush one try: the exporter does not retry a 503', async () => {
    const running = await start();
    const { gateway, collector, client } = running;
    await warmUp(running);
    collector.answers.push({ status: 200, body: {}, delayMs: HOLD_MS });
    collector.behaviour = { status: 503, body: {} };
    await Promise.all(Array.from({ length: 5 }, () => call(client)));
    await collector.waitFor(2);
    await Promise.all(Array.from({ length: LAST_REQUESTS }, () => call(client)));

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const stoppedIn = Date.now() - signalledAt;

    // The warm-up, the held export, and the last requests' export refused once: OpenTelemetry's exporter
    // retries a 503 after about a second, which the flush does not let it.
    expect(collector.requests).toHaveLength(3);
    expect(stoppedIn).toBeLessThan(GRACE_MS - 300);
  }, 90_000);

  it('gives each webhook delivery still held one try, and retries none', async () => {
    // A retry would wait 5-10 s: the flush must not.
    const running = await start('webhook', { SWITCHBOARD_BROADCAST_RETRY_MS: '10000' });
    const { gateway, collector, client } = running;
    // The two deliveries in flight at the signal succeed late; every later one is refused with a retryable 503.
    collector.answers.push({ status: 200, delayMs: HOLD_MS }, { status: 200, delayMs: HOLD_MS });
    collector.behaviour = { status: 503 };
    const ids = await Promise.all(Array.from({ length: 6 }, () => call(client)));
    await collector.waitFor(2);

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const stoppedIn = Date.now() - signalledAt;

    // Every generation was posted once: the four behind the held ones at the flush, none of them again.
    const posted = collector.requests.map((request) => (JSON.parse(request.body.toString('utf8')) as { id: string }).id);
    expect(posted.toSorted()).toEqual(ids.toSorted());
    // Done once the held deliveries were answered (1.5 s): a delivery waiting to be retried would have held
    // the flush to its budget (about 3 s).
    expect(stoppedIn).toBeLessThan(GRACE_MS - 300);
  }, 90_000);

  it('gives a destination that hangs no more than the budget, and logs what it dropped', async () => {
    const running = await start();
    const { gateway, collector, client } = running;
    await warmUp(running);
    collector.behaviour = 'hang';
    const ids = await Promise.all(Array.from({ length: LAST_REQUESTS }, () => call(client)));
    expect(new Set(ids).size).toBe(LAST_REQUESTS);

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const stoppedIn = Date.now() - signalledAt;

    // The export of the last generations reached the collector, which never answered it.
    expect(collector.requests.length).toBe(2);
    const line = gateway.logs.map((entry) => JSON.parse(entry) as Record<string, unknown>).find((entry) => entry.message === 'broadcast flush at shutdown ran out of time; generations dropped');
    expect(line).toMatchObject({ level: 'warn', kind: 'otlp', items: LAST_REQUESTS });
    expect(line?.budget_ms).toBeLessThanOrEqual(GRACE_MS);
    // The budget, then the exit: not the export's 10 s timeout.
    expect(stoppedIn).toBeLessThan(GRACE_MS + 2_500);
  }, 90_000);
});
