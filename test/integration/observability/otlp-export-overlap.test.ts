/**
 * An OTLP destination whose collector is slow (it answers each export 300 ms after receiving it) and a burst of
 * three full batches (3 × 512 generations): a second export goes while the first is in flight, never a third,
 * and every generation arrives exactly once, counted once as sent. The real broadcaster and official exporter,
 * to a collector on 127.0.0.1 that decodes each export (OTLP/protobuf) as a collector would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import { generationIdBound } from '#src/http/generation-id.ts';
import { buildGenerationRecord } from '#src/observability/build-generation-record.ts';
import { createBroadcaster } from '#src/observability/broadcast/broadcaster.ts';
import { OTLP_BATCH_SIZE, type Broadcaster } from '#src/observability/broadcast/broadcast-types.ts';
import { createDestinationNetwork } from '#src/observability/destinations/destination-address.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { plain, STARTED } from '#test/unit/observability/broadcast/broadcast-fixtures.ts';
import { TRACES_PATH } from './destination-receivers.ts';
import { decodeTraceExport } from '#test/helpers/otlp-decode.ts';

const ANSWER_MS = 300;
const GENERATIONS = 3 * OTLP_BATCH_SIZE;

let collector: CaptureServer | undefined;
let broadcaster: Broadcaster | undefined;

afterEach(async () => {
  await broadcaster?.close(1_000);
  await collector?.close();
});

/** The generation ids one export carried. */
function idsOf(body: Buffer, contentType: string | undefined): Set<string> {
  return new Set(decodeTraceExport(body, contentType).flatMap((span) => span.attributes['switchboard.generation.id'] ?? []).map(String));
}

describe('an OTLP destination behind on a slow collector', () => {
  it('overlaps two exports, never three, and delivers every generation once', async () => {
    collector = await startCaptureServer({ status: 200, body: {}, delayMs: ANSWER_MS });
    const counts = { sent: 0, dropped: 0 };
    // The queue holds the burst: what is measured is how the exports go, not the limit.
    broadcaster = createBroadcaster(
      { queueLimit: 2_000, timeoutMs: 10_000, retryBaseMs: 100, retries: 0, version: 'test', network: createDestinationNetwork([{ kind: 'cidr', range: '127.0.0.1/32' }]) },
      { sent: (_kind, count) => void (counts.sent += count), dropped: (_kind, _reason, count) => void (counts.dropped += count) },
      createLogger({ level: 'error' }),
    );
    const destination = {
      id: 'slow', name: 'slow', kind: 'otlp', endpoint: `${collector.url}${TRACES_PATH}`, protocol: 'http/protobuf', publicKey: null,
      secrets: { headers: {}, secretKey: null, signingSecret: null }, samplingRate: 1, includeContent: false, revision: '1',
    } as unknown as ActiveDestination;
    broadcaster.sync([destination]);

    const ids: string[] = [];
    for (let index = 0; index < GENERATIONS; index += 1) {
      const outcome = plain({ id: `${generationIdBound(STARTED)}${String(index).padStart(15, '0')}` });
      ids.push(outcome.id);
      broadcaster.offer({ record: buildGenerationRecord(outcome, { storeContent: false, retentionDays: 30 }), outcome }, [destination]);
    }
    await collector.waitFor(3);
    const deadline = Date.now() + 15_000;
    while (counts.sent + counts.dropped < GENERATIONS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    const [first, second, third] = collector.requests;
    // The second export reached the collector before the first was answered; the third only after an answer.
    expect(second!.receivedAt).toBeLessThan(first!.receivedAt + ANSWER_MS);
    expect(third!.receivedAt).toBeGreaterThanOrEqual(first!.receivedAt + ANSWER_MS);
    expect(collector.requests).toHaveLength(3);
    const carried = collector.requests.map((request) => idsOf(request.body, request.headers['content-type']));
    expect(carried.map((exported) => exported.size)).toEqual([OTLP_BATCH_SIZE, OTLP_BATCH_SIZE, OTLP_BATCH_SIZE]);
    const delivered = new Set(carried.flatMap((exported) => [...exported]));
    expect(delivered.size).toBe(GENERATIONS);
    expect(ids.filter((id) => !delivered.has(id))).toEqual([]);
    expect(counts).toEqual({ sent: GENERATIONS, dropped: 0 });
  }, 60_000);
});
