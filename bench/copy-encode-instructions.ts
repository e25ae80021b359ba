/**
 * `node bench/copy-encode-instructions.ts [--records 5000] [--warmup 20000] [--batch 500] [--rounds 3]
 * [--node-flags a,b] [--keep-dumps]`: the instructions the binary COPY file of one generation record costs,
 * counted by callgrind with nothing else in the window: batches of bench/observability-cost.ts's records are
 * written by `withGenerationsCopyFile` into a load that only resolves. `bench/record-instructions.ts --database
 * postgres` counts the same encoding inside the whole write path (node-postgres, the socket, the queue), where a
 * change of a few hundred instructions per record is below one round's scatter; this count repeats within a
 * few instructions. Read a kept dump with `callgrind_annotate` (`--node-flags
 * --liftoff-only,--perf-basic-prof` names JIT code in /tmp/perf-<pid>.map).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { countChildRounds } from './callgrind-rounds.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});

const nextMessage = () => new Promise<unknown>((resolve) => process.once('message', resolve));

/** The measured side, under valgrind: builds each round's batches before it starts, then only encodes them. */
async function runChild(options: { records: number; warmup: number; batch: number; rounds: number }): Promise<void> {
  const { withGenerationsCopyFile } = await import('#src/observability/generation-copy.ts');
  const { benchGeneration } = await import('./bench-generation.ts');
  const account = { accountId: randomUUID(), workspaceId: randomUUID(), keyHash: 'a'.repeat(64) };
  const batches = (total: number) => {
    const records = Array.from({ length: total }, () => benchGeneration(account).record);
    return Array.from({ length: Math.ceil(total / options.batch) }, (_unused, index) => records.slice(index * options.batch, (index + 1) * options.batch));
  };
  let bytes = 0;
  const load = async (file: Uint8Array) => {
    bytes += file.length;
  };
  for (const batch of batches(options.warmup)) await withGenerationsCopyFile(batch, load);
  for (let round = 0; round < options.rounds; round += 1) {
    const measured = batches(options.records);
    const go = nextMessage();
    process.send?.({ ready: true });
    await go;
    for (const batch of measured) await withGenerationsCopyFile(batch, load);
    const next = nextMessage();
    process.send?.({ measured: options.records });
    await next;
  }
  console.error(`${(bytes / (options.warmup + options.records * options.rounds)).toFixed(1)} bytes per record`);
  process.disconnect?.();
}

if (values.child) {
  await runChild({ records: Number(values.records), warmup: Number(values.warmup), batch: Number(values.batch), rounds: Number(values.rounds) });
} else {
  const rounds = await countChildRounds({
    script: new URL(import.meta.url).pathname,
    args: ['--child', '{directory}', '--records', values.records, '--warmup', values.warmup, '--batch', values.batch, '--rounds', values.rounds],
    nodeFlags: values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS],
    rounds: Number(values.rounds),
    name: 'copy-encode',
    keepDumps: values['keep-dumps'],
  });
  const k = (count: number) => `${(count / 1e3).toFixed(2)} k`;
  console.log(`instructions per record's COPY encoding (callgrind, ${values.records} records a round in batches of ${values.batch}, after ${values.warmup}): ${rounds.map((counts) => k(counts.total)).join(', ')}; without GC and compilers ${rounds.map((counts) => k(counts.total - counts.gc - counts.compiler)).join(', ')}`);
}
