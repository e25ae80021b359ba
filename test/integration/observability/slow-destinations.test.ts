/**
 * Destinations that hang or fail never slow an answer: the same small loop of requests is timed without
 * destinations and with an OTLP collector and a webhook that never answer and a Langfuse that answers 500,
 * and the medians are compared with a generous bound. A hanging destination's queue fills up, and what does
 * not fit is dropped and counted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { scrapeMetrics } from '#test/helpers/prometheus-scrape.ts';
import { ALPHA_FIRST, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const LOOP = 15;
let setup: RecordsGateway;
let hanging: CaptureServer;
let failing: CaptureServer;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function loop(): Promise<number[]> {
  const durations: number[] = [];
  for (let index = 0; index < LOOP; index += 1) {
    setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    let started = performance.now();
    expect((await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    durations.push(performance.now() - started);
    started = performance.now();
    expect((await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    durations.push(performance.now() - started);
  }
  return durations;
}

beforeAll(async () => {
  [hanging, failing] = await Promise.all([startCaptureServer('hang'), startCaptureServer({ status: 500 })]);
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_QUEUE_LIMIT: '5', SWITCHBOARD_BROADCAST_TIMEOUT_MS: '30000', SWITCHBOARD_BROADCAST_RETRY_MS: '100' } });
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([hanging?.close(), failing?.close()]);
});

describe('slow and failing destinations', () => {
  it('do not change answer latency beyond noise, and a full queue drops and counts', async () => {
    await loop(); // warm-up
    const without = median(await loop());

    const key = setup.gateway.management_key;
    for (const body of [
      { name: 'dead collector', kind: 'otlp', endpoint: `${hanging.url}/v1/traces` },
      { name: 'dead hook', kind: 'webhook', endpoint: `${hanging.url}/hook`, signing_secret: 'whsec_hanging_secret_01' },
      { name: 'broken langfuse', kind: 'langfuse', endpoint: failing.url, public_key: 'pk', secret_key: 'sk' },
    ]) {
      expect((await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', { key, body })).status).toBe(201);
    }
    const withDestinations = median(await loop());
    expect(withDestinations).toBeLessThan(without * 1.5 + 15);

    await setup.gateway.server.flushRecords();
    const scrape = await scrapeMetrics(setup.gateway.baseUrl, key);
    expect(scrape.value('switchboard_broadcast_dropped_total', { kind: 'webhook', reason: 'queue_full' })).toBeGreaterThan(0);
    expect(scrape.value('switchboard_broadcast_dropped_total', { kind: 'otlp', reason: 'queue_full' })).toBeGreaterThan(0);
    expect(scrape.value('switchboard_broadcast_queue_depth', { kind: 'webhook' })).toBeGreaterThan(0);
    // Delivery is asynchronous, and a batch waits a moment to fill before it is sent.
    await vi.waitFor(() => {
      expect(hanging.requests.length).toBeGreaterThan(0);
      expect(failing.requests.length).toBeGreaterThan(0);
    }, { timeout: 5_000, interval: 50 });
  }, 120_000);
});
