/**
 * An OTLP destination's exports gather generations: each batch waits until it is full or its oldest
 * generation has waited the linger (0.2 s), also when the generations came in while an export was in flight,
 * which before went out at once, each few in an export (and an HTTP request) of their own. The client is the
 * Anthropic SDK; the collector on 127.0.0.1 holds one export for a moment, as a collector across a network
 * does, and decodes each export (OTLP/protobuf) to find which export carried which generation.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import { decodeTraceExport } from '#test/helpers/otlp-decode.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { startTracedGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
let client: Anthropic;
let collector: CaptureServer;

const body = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], ...ALPHA_FIRST };
// How long the collector holds the export in flight: well under the linger, so that a generation queued
// during it has not waited its 0.2 s when the export ends.
const HOLD_MS = 60;

beforeAll(async () => {
  ({ setup, client, collector } = await startTracedGateway());
}, 60_000);
afterAll(async () => {
  await setup?.close();
  await collector?.close();
});

/** One call through the SDK; its generation id. */
async function call(): Promise<string> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const { response } = await client.messages.create(body).withResponse();
  return response.headers.get('x-generation-id') ?? '';
}

/** The index of the export (in arrival order) that carried generation `id`'s span, once one did. */
async function exportOf(id: string): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const index = collector.requests.findIndex((request) => decodeTraceExport(request.body, request.headers['content-type']).some((span) => span.attributes['switchboard.generation.id'] === id));
    if (index >= 0) return index;
    if (Date.now() > deadline) throw new Error(`no export carried ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OTLP export batching', () => {
  it('a generation queued while an export is in flight waits for company rather than going out alone', async () => {
    // The first export also loads the exporter: let it pass before anything is timed.
    await exportOf(await call());
    const before = collector.requests.length;
    collector.answers.push({ status: 200, body: {}, delayMs: HOLD_MS });
    const first = await call();
    await collector.waitFor(before + 1);
    // The export of `first` is in flight (held by the collector): `second` is queued behind it.
    const second = await call();
    const held = collector.requests[before]!;
    await sleep(Math.max(0, held.receivedAt + HOLD_MS + 30 - Date.now()));
    // The held export has been answered; `second` has waited about HOLD_MS of its 0.2 s.
    const third = await call();
    const [firstExport, secondExport, thirdExport] = [await exportOf(first), await exportOf(second), await exportOf(third)];
    expect(firstExport).toBe(before);
    // Without the linger after an export, `second` went out alone as soon as the held export ended.
    expect(secondExport).toBe(thirdExport);
    expect(collector.requests.length).toBe(before + 2);
    // Still bounded: the batch left about 0.2 s after `second` was queued, not later.
    expect(collector.requests[secondExport]!.receivedAt - held.receivedAt).toBeLessThan(2_000);
  });
});
