/**
 * `node bench/otlp-paced.ts [rates, default 1000,500,1000,2000] [--seconds 3] [--answer-ms 0]`: one OTLP/protobuf destination
 * fed at a steady rate, as a gateway under load feeds it, instead of `bench/observability-cost.ts`'s 100
 * generations a tick: how many generations each export carries, and the process's CPU per generation. Each
 * rate runs twice, generations offered to the real broadcaster (sampling 1, the official exporter, a receiver
 * in this process on 127.0.0.1) and, as its baseline, built and paced the same way but not offered; the
 * difference is the destination's cost. A 1 ms interval timer paces the offers. The first rate is a warm-up.
 * `--answer-ms` delays each of the receiver's answers, as a collector across a network or a busy one would.
 * CPU time on a shared machine moves with its load: alternate runs of two commits and compare the export counts,
 * which the load moves less.
 */
import { parseArgs } from 'node:util';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { createBroadcaster } from '#src/observability/broadcast/broadcaster.ts';
import { createDestinationNetwork } from '#src/observability/destinations/destination-address.ts';
import { createLogger } from '#src/logger.ts';
import { benchGeneration } from './bench-generation.ts';
import { startExportCounter } from './observability-run.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { seconds: { type: 'string', default: '3' }, 'answer-ms': { type: 'string', default: '0' } } });
const rates = (positionals[0] ?? '1000,500,1000,2000').split(',').map(Number);
const seconds = Number(values.seconds);

const receiver = await startExportCounter(Number(values['answer-ms']));
const port = receiver.port;

let sent = 0;
let dropped = 0;
const network = createDestinationNetwork([{ kind: 'cidr', range: '127.0.0.1/32' }]);
const broadcaster = createBroadcaster(
  { queueLimit: 1000, timeoutMs: 60_000, retryBaseMs: 100, retries: 0, version: 'bench', network },
  { sent: (_kind, added) => (sent += added), dropped: (_kind, _reason, count) => (dropped += count) },
  createLogger({ level: 'warn' }),
);
const destination = {
  id: 'bench', name: 'bench', kind: 'otlp', endpoint: `http://127.0.0.1:${port}/v1/traces`, protocol: 'http/protobuf', publicKey: null,
  secrets: { headers: {}, secretKey: null, signingSecret: null }, samplingRate: 1, includeContent: false, revision: '1',
} as unknown as ActiveDestination;
broadcaster.sync([destination]);
const generation = () => benchGeneration({ accountId: 'account', workspaceId: 'workspace', keyHash: 'key' });

/** CPU µs per generation at `rate` a second for `seconds`; offered to the destination or only built. */
async function run(rate: number, offer: boolean): Promise<{ micros: number; exports: number; dropped: number; total: number }> {
  const total = Math.round(rate * seconds);
  const [exportsBefore, sentBefore, droppedBefore] = [receiver.exports(), sent, dropped];
  const before = process.cpuUsage();
  const start = performance.now();
  let offered = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.round(((performance.now() - start) * rate) / 1000));
      for (; offered < due; offered += 1) {
        const item = generation();
        if (offer) broadcaster.offer(item, [destination]);
      }
      if (offered >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  while (offer && sent + dropped < sentBefore + droppedBefore + total) await new Promise((resolve) => setTimeout(resolve, 20));
  const cpu = process.cpuUsage(before);
  return { micros: (cpu.user + cpu.system) / total, exports: receiver.exports() - exportsBefore, dropped: dropped - droppedBefore, total };
}

try {
  for (const [index, rate] of rates.entries()) {
    const offered = await run(rate, true);
    const baseline = await run(rate, false);
    const line = `${rate}/s: ${offered.exports} exports for ${offered.total} generations (${(offered.total / Math.max(1, offered.exports)).toFixed(1)} each), ${offered.dropped} dropped; CPU ${offered.micros.toFixed(1)} µs per generation offered, ${baseline.micros.toFixed(1)} paced only: the destination ${(offered.micros - baseline.micros).toFixed(1)} µs`;
    console.log(index === 0 ? `(warm-up) ${line}` : line);
  }
} finally {
  await broadcaster.close(1_000);
  receiver.close();
}
