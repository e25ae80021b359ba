/**
 * A destination deleted or disabled gets nothing more: a delivery that was being retried when it went is not
 * retried again (its receiver sees no request after the change; for OTLP, OpenTelemetry's transport's own
 * retries on a 503), and the generation is counted once as dropped, not once when the channel closed and
 * again when the abandoned retries ran out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { scrapeMetrics } from '#test/helpers/prometheus-scrape.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

// Backoff before the three retries: 0.3-0.6 s, 0.6-1.2 s, 1.2-2.4 s; all of them are over within 4.5 s. The
// OTLP transport's retries come about 1 s and 2.5 s after its first attempt, within its 10 s time limit.
const RETRY_MS = 600;
const RETRIES_OVER_MS = 4_500;
let setup: RecordsGateway;
let hook: CaptureServer;
let langfuse: CaptureServer;
let collector: CaptureServer;

const api = (method: string, path: string, body?: unknown) =>
  callApi(setup.gateway.baseUrl, method, path, { key: setup.gateway.management_key, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  [hook, langfuse, collector] = await Promise.all([startCaptureServer({ status: 500 }), startCaptureServer({ status: 500 }), startCaptureServer({ status: 503 })]);
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: String(RETRY_MS) } });
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([hook?.close(), langfuse?.close(), collector?.close()]);
});

describe('a destination removed while a delivery to it is being retried', () => {
  it('is not retried once deleted or disabled, and the generation is dropped once', async () => {
    const created = await Promise.all([
      api('POST', '/observability/destinations', { name: 'hook', kind: 'webhook', endpoint: `${hook.url}/hook`, signing_secret: 'whsec_removal_secret_0123' }),
      api('POST', '/observability/destinations', { name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-removal', secret_key: 'sk-lf-removal' }),
      api('POST', '/observability/destinations', { name: 'otel', kind: 'otlp', endpoint: `${collector.url}/v1/traces` }),
    ]);
    for (const response of created) expect(response.status, JSON.stringify(response.body)).toBe(201);
    const [hookId, langfuseId, collectorId] = created.map((response) => response.body.data.id as string);

    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    expect((await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    await setup.gateway.server.flushRecords();
    await Promise.all([hook.waitFor(1), langfuse.waitFor(1), collector.waitFor(1)]);

    expect((await api('DELETE', `/observability/destinations/${hookId}`)).status).toBe(204);
    expect((await api('PATCH', `/observability/destinations/${langfuseId}`, { disabled: true })).status).toBe(200);
    expect((await api('DELETE', `/observability/destinations/${collectorId}`)).status).toBe(204);
    const removedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, RETRIES_OVER_MS));

    const scrape = await scrapeMetrics(setup.gateway.baseUrl, setup.gateway.management_key);
    const after = (receiver: CaptureServer) => receiver.requests.filter((request) => request.receivedAt > removedAt).length;
    const counted = (kind: string) => ({
      dropped: scrape.value('switchboard_broadcast_dropped_total', { kind, reason: 'failed' }),
      sent: scrape.value('switchboard_broadcast_sent_total', { kind }),
    });
    expect({
      webhook: { requestsAfter: after(hook), ...counted('webhook') },
      langfuse: { requestsAfter: after(langfuse), ...counted('langfuse') },
      otlp: { requestsAfter: after(collector), ...counted('otlp') },
    }).toEqual({
      webhook: { requestsAfter: 0, dropped: 1, sent: 0 },
      langfuse: { requestsAfter: 0, dropped: 1, sent: 0 },
      otlp: { requestsAfter: 0, dropped: 1, sent: 0 },
    });
  }, 30_000);
});
