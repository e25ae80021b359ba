/**
 * A destination answering 429 or 503 with `Retry-After` is retried when it asked, not on the gateway's own
 * backoff (50 ms here): a webhook's delay-seconds and Langfuse's HTTP date, each measured by a receiver on
 * 127.0.0.1 that records when every delivery arrived. The wait holds only that destination: another
 * destination gets the same generation at once, and the request is answered at once. An OTLP collector's
 * `Retry-After` is honoured by OpenTelemetry's own exporter within the export's time limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { startCaptureServer, type CaptureServer, type CapturedRequest } from '#test/helpers/capture-server.ts';
import { decodeTraceExport } from '#test/helpers/otlp-decode.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { createDestination as createDestinationOn, deleteDestination } from './destination-receivers.ts';

let setup: RecordsGateway;
let slow: CaptureServer;
let prompt: CaptureServer;
let langfuse: CaptureServer;
let collector: CaptureServer;
const destinations: string[] = [];

async function createDestination(body: Record<string, unknown>): Promise<void> {
  destinations.push(await createDestinationOn(setup.gateway, body));
}

async function removeDestinations(): Promise<void> {
  for (const id of destinations.splice(0)) await deleteDestination(setup.gateway, id);
}

/** Sends one request; returns its generation id and how long the answer took. */
async function generation(): Promise<{ id: string; answeredMs: number }> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const started = Date.now();
  const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
  expect(call.status).toBe(200);
  const answeredMs = Date.now() - started;
  await setup.gateway.server.flushRecords();
  return { id: call.headers.get('x-generation-id') ?? '', answeredMs };
}

/** The gap between the first two deliveries a receiver got. */
function gapMs(requests: CapturedRequest[]): number {
  return requests[1]!.receivedAt - requests[0]!.receivedAt;
}

beforeAll(async () => {
  [slow, prompt, langfuse, collector] = await Promise.all([startCaptureServer(), startCaptureServer(), startCaptureServer({ status: 207, body: { successes: [], errors: [] } }), startCaptureServer({ status: 200, body: {} })]);
  // The gateway's own backoff is 25-50 ms before the first retry: a wait of seconds is the destination's.
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: '50' } });
  // The first request compiles the spec's validators: the timed one below measures only the answer.
  await generation();
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([slow?.close(), prompt?.close(), langfuse?.close(), collector?.close()]);
});

describe('Retry-After from a destination', () => {
  it("a webhook's 503 with delay-seconds is retried after that many seconds, holding neither the request nor another destination", async () => {
    slow.answers.push({ status: 503, headers: { 'retry-after': '2' } });
    await createDestination({ name: 'slow', kind: 'webhook', endpoint: `${slow.url}/hook`, signing_secret: 'whsec_retry_after_0001' });
    await createDestination({ name: 'prompt', kind: 'webhook', endpoint: `${prompt.url}/hook`, signing_secret: 'whsec_retry_after_0002' });
    try {
      const { id, answeredMs } = await generation();
      expect(answeredMs).toBeLessThan(1_500);
      const [first] = await slow.waitFor(1);
      const [other] = await prompt.waitFor(1);
      // The other destination did not wait for the first one's Retry-After.
      expect(JSON.parse(other!.body.toString()).id).toBe(id);
      expect(other!.receivedAt - first!.receivedAt).toBeLessThan(1_000);
      const requests = await slow.waitFor(2);
      expect(gapMs(requests)).toBeGreaterThanOrEqual(1_950);
      expect(gapMs(requests)).toBeLessThan(4_000);
      expect(JSON.parse(requests[1]!.body.toString()).id).toBe(id);
      // Delivered on the retry: nothing more is sent.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(slow.requests).toHaveLength(2);
    } finally {
      await removeDestinations();
    }
  });

  it("Langfuse's 429 with an HTTP date is retried at that date", async () => {
    // An HTTP date has whole seconds: three seconds ahead is at least two from now.
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_000);
    langfuse.answers.push({ status: 429, headers: { 'retry-after': at.toUTCString() } });
    await createDestination({ name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-retry', secret_key: 'sk-lf-retry-0001' });
    try {
      const { id } = await generation();
      const requests = await langfuse.waitFor(2, 20_000);
      expect(requests[1]!.receivedAt).toBeGreaterThanOrEqual(at.getTime() - 50);
      expect(gapMs(requests)).toBeGreaterThanOrEqual(1_500);
      const batch = JSON.parse(requests[1]!.body.toString()).batch as { body: { id?: string } }[];
      expect(batch.some((event) => event.body.id === id)).toBe(true);
    } finally {
      await removeDestinations();
    }
  });

  it("an OTLP collector's 503 with Retry-After is retried after it (OpenTelemetry's exporter)", async () => {
    collector.answers.push({ status: 503, headers: { 'retry-after': '2' } });
    await createDestination({ name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/json' });
    try {
      const { id } = await generation();
      const requests = await collector.waitFor(2, 20_000);
      expect(gapMs(requests)).toBeGreaterThanOrEqual(1_950);
      const spans = decodeTraceExport(requests[1]!.body, requests[1]!.headers['content-type']);
      expect(spans.some((span) => span.attributes['switchboard.generation.id'] === id)).toBe(true);
    } finally {
      await removeDestinations();
    }
  });
});
