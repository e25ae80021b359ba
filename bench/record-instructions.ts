/**
 * `node bench/record-instructions.ts [--records 5000] [--warmup 5000] [--batch 500] [--rounds 2]
 * [--database pglite|postgres] [--node-flags a,b] [--keep-dumps]`: the instructions one generation record costs
 * the gateway's process, counted by valgrind's callgrind. A child process (under valgrind, with the gateway's
 * `--liftoff-only`) opens PGlite in a temporary data directory (or, with `postgres`, a fresh database on
 * DATABASE_URL's server, whose own work is not counted: only the gateway's side of the binary COPY) and writes
 * records through `insertGenerations` in batches, as the record queue does; instrumentation is on (`callgrind_control`) for exactly the measured batches of each round, after an
 * uninstrumented warm-up. CPU time per record (bench/observability-cost.ts) moves by ±15% on a shared machine;
 * this count repeats within a percent or two, so it tells two versions of the write path apart. Read a kept
 * dump with `callgrind_annotate` (`--node-flags --liftoff-only,--perf-basic-prof` names JIT and WebAssembly
 * code in /tmp/perf-<pid>.map).
 */
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { countChildRounds } from './callgrind-rounds.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '5000' },
    batch: { type: 'string', default: '500' },
    database: { type: 'string', default: 'pglite' },
    rounds: { type: 'string', default: '2' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});

if (values.child) {
  const { runChild } = await import('./record-instructions-child.ts');
  await runChild({ directory: values.child, records: Number(values.records), warmup: Number(values.warmup), batch: Number(values.batch), rounds: Number(values.rounds), database: values.database === 'postgres' ? 'postgres' : 'pglite' });
} else {
  const rounds = await countChildRounds({
    script: new URL(import.meta.url).pathname,
    args: ['--child', '{directory}', '--records', values.records, '--warmup', values.warmup, '--batch', values.batch, '--rounds', values.rounds, '--database', values.database],
    nodeFlags: values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS],
    rounds: Number(values.rounds),
    name: 'records',
    keepDumps: values['keep-dumps'],
  });
  const k = (count: number) => `${(count / 1e3).toFixed(1)} k`;
  // The collector's and compilers' parts depend on when a round falls (a major collection, code still tiering up):
  // the rest, without them, is what tells two versions of the write path apart.
  console.log(`instructions per record on ${values.database} (callgrind, ${values.records} records a round in batches of ${values.batch}, after ${values.warmup}): ${rounds.map((counts) => k(counts.total)).join(', ')}; without GC and compilers ${rounds.map((counts) => k(counts.total - counts.gc - counts.compiler)).join(', ')}`);
}
