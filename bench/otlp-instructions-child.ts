/**
 * The measured side of `bench/otlp-instructions.ts`, run under callgrind: for each window it runs a warm-up,
 * says `ready`, runs the measured generations when told `go`, says `done`, and waits for `continue`.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { OTLP_BATCH_SIZE, type BroadcastItem, type TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { createBroadcaster } from '#src/observability/broadcast/broadcaster.ts';
import { convertToOtelSpans, type SpanEnvironment } from '#src/observability/broadcast/convert-to-otel-spans.ts';
import { resolveTraceContext } from '#src/observability/broadcast/trace-context.ts';
import { createDestinationNetwork } from '#src/observability/destinations/destination-address.ts';
import { createLogger } from '#src/logger.ts';
import { benchGeneration } from './bench-generation.ts';

type Message = { type: string };

const inbox: Message[] = [];
let wake: (() => void) | undefined;
process.on('message', (message) => {
  inbox.push(message as Message);
  wake?.();
});

async function receive(type: string): Promise<void> {
  for (;;) {
    while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    if (inbox.shift()?.type === type) return;
  }
}

const generations = (count: number): BroadcastItem[] => Array.from({ length: count }, () => benchGeneration({ accountId: 'account', workspaceId: 'workspace', keyHash: 'key' }));
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Runs the windows; the parent counts each one's instructions. */
export async function runChild(options: { port: number; generations: number; warmup: number; rounds: number; windows: readonly string[] }): Promise<void> {
  try {
    // The environment the OTLP sender builds for a destination (otlp-sender.ts).
    const environment: SpanEnvironment = {
      resource: resourceFromAttributes({ 'service.name': 'switchboard', 'service.version': 'bench' }),
      scope: { name: 'switchboard-gateway', version: 'bench' },
      includeContent: false,
    };
    const build = (items: BroadcastItem[]): ReadableSpan[][] => {
      const batches: ReadableSpan[][] = [];
      for (let index = 0; index < items.length; index += OTLP_BATCH_SIZE) {
        const traced: TracedItem[] = items.slice(index, index + OTLP_BATCH_SIZE).map((item) => ({ ...item, trace: resolveTraceContext(item.record) }));
        batches.push(traced.flatMap((item) => convertToOtelSpans(item, environment)));
      }
      return batches;
    };
    let bytes = 0;
    const serialize = (batches: ReadableSpan[][]) => {
      for (const batch of batches) bytes += ProtobufTraceSerializer.serializeRequest(batch)?.length ?? 0;
    };

    let sent = 0;
    const network = createDestinationNetwork([{ kind: 'cidr', range: '127.0.0.1/32' }]);
    const broadcaster = createBroadcaster(
      { queueLimit: 1e6, timeoutMs: 60_000, retryBaseMs: 100, retries: 0, version: 'bench', network },
      { sent: (_kind, added) => (sent += added), dropped: (kind, reason, dropped) => console.error(`dropped ${dropped} (${kind}, ${reason})`) },
      createLogger({ level: 'warn' }),
    );
    const destination = {
      id: 'bench', name: 'bench', kind: 'otlp', endpoint: `http://127.0.0.1:${options.port}/v1/traces`, protocol: 'http/protobuf', publicKey: null,
      secrets: { headers: {}, secretKey: null, signingSecret: null }, samplingRate: 1, includeContent: false, revision: '1',
    } as unknown as ActiveDestination;
    broadcaster.sync([destination]);
    const broadcast = async (items: BroadcastItem[]) => {
      const target = sent + items.length;
      for (let index = 0; index < items.length; index += 100) {
        for (const item of items.slice(index, index + 100)) broadcaster.offer(item, [destination]);
        await tick();
      }
      while (sent < target) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    const windows: Record<string, (items: BroadcastItem[]) => Promise<void> | void> = {
      build: (items) => void build(items),
      serialize: (items) => serialize(build(items)),
      broadcast,
    };
    for (const [name, run] of Object.entries(windows)) {
      if (!options.windows.includes(name)) continue;
      // Each round's generations are made before the warm-up, whose collections move them out of the young
      // generation as a gateway's would be by the time they are broadcast: copying them is no round's cost.
      const rounds = Array.from({ length: options.rounds }, () => generations(options.generations));
      await run(generations(options.warmup));
      for (const items of rounds) {
        // The serialize window counts the serialiser alone: its spans are built before the window opens.
        const prepared = name === 'serialize' ? build(items) : undefined;
        process.send?.({ type: 'ready', window: name });
        await receive('go');
        if (prepared) serialize(prepared);
        else await run(items);
        process.send?.({ type: 'done' });
        await receive('continue');
      }
    }
    console.error(`(serialized ${(bytes / (options.warmup + options.rounds * options.generations)).toFixed(0)} bytes per generation)`);
    await broadcaster.close(1_000);
    process.send?.({ type: 'finished' });
  } catch (error) {
    process.send?.({ type: 'failed', message: String((error as Error).stack ?? error) });
  }
}
