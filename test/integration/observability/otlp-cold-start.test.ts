/**
 * An OTLP destination, configured in the file or just created over the API, takes a burst of traffic at once
 * while its first export is still slow (a cold exporter: code loading, a serializer not yet compiled, a new
 * connection; the collector on 127.0.0.1 holds that export to stand for it) and loses nothing: the collector
 * receives every generation and `switchboard_broadcast_dropped_total` stays 0. The queue limit is small (20,
 * the default is 1,000 with batches of 512) so that a burst the test can send reaches what, at the default,
 * 1,000 generations a second reach under load (bench/otlp-paced.ts). The client is the Anthropic SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { scrapeMetrics } from '#test/helpers/prometheus-scrape.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { createDestination, receivedSpans, TRACES_PATH } from './destination-receivers.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const QUEUE_LIMIT = 20;
// More than the queue holds, fewer than it holds with the first batch in flight.
const BURST = 35;
// The first export's answer comes this late; the whole burst is queued by then.
const FIRST_EXPORT_MS = 1_500;

type Way = 'configured in the file, at start' | 'created over the API while the gateway runs';

let setup: RecordsGateway | undefined;
let client: Anthropic;
let collector: CaptureServer | undefined;

/** A gateway with its OTLP destination given `way`; the collector holds its first export. */
async function startCold(way: Way): Promise<void> {
  collector = await startCaptureServer({ status: 200, body: {} });
  collector.answers.push({ status: 200, body: {}, delayMs: FIRST_EXPORT_MS });
  const endpoint = `${collector.url}${TRACES_PATH}`;
  const extraYaml = way === 'configured in the file, at start' ? ['observability:', '  destinations:', `    - { name: cold, kind: otlp, endpoint: "${endpoint}", protocol: http/protobuf }`, ''].join('\n') : undefined;
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_QUEUE_LIMIT: String(QUEUE_LIMIT) }, ...(extraYaml ? { extraYaml } : {}) });
  client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  if (way === 'created over the API while the gateway runs') await createDestination(setup.gateway, { name: 'cold', kind: 'otlp', endpoint, protocol: 'http/protobuf' });
}

afterEach(async () => {
  await setup?.close();
  await collector?.close();
  setup = undefined;
  collector = undefined;
});

const body = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], ...ALPHA_FIRST };

/** One call through the SDK; its generation id. */
async function call(): Promise<string> {
  const { response } = await client.messages.create(body).withResponse();
  return response.headers.get('x-generation-id') ?? '';
}

describe.each<Way>(['configured in the file, at start', 'created over the API while the gateway runs'])('an OTLP destination %s, under load at once', (way) => {
  it('delivers every generation of a burst sent while its first export is pending, and drops none', async () => {
    await startCold(way);
    const gateway = setup!.gateway;
    const held = collector!;
    setup!.alpha.enqueue(...Array.from({ length: BURST }, () => reply.fixture('anthropic-text')));
    const ids = await Promise.all(Array.from({ length: BURST }, () => call()));
    const burstEnd = Date.now();
    expect(new Set(ids).size).toBe(BURST);

    const deadline = Date.now() + 20_000;
    let delivered = new Set<string>();
    while (Date.now() < deadline) {
      delivered = new Set(receivedSpans(held, TRACES_PATH).map((span) => String(span.attributes['switchboard.generation.id'])));
      if (ids.every((id) => delivered.has(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const scrape = await scrapeMetrics(gateway.baseUrl, gateway.management_key);
    expect(scrape.value('switchboard_broadcast_dropped_total')).toBe(0);
    expect(ids.filter((id) => !delivered.has(id))).toEqual([]);
    // The burst was served while the first export was pending, which it is there to test.
    expect(burstEnd).toBeLessThan(held.requests[0]!.receivedAt + FIRST_EXPORT_MS);
  }, 60_000);
});
