/**
 * `node bench/request-instructions.ts [--requests 3000] [--warmup 15000] [--rounds 2] [--database postgres|pglite]
 * [--node-flags a,b] [--keep-dumps]`: the instructions one sequential JSON request costs the gateway, counted by
 * valgrind's callgrind with the gateway and its client in one process (bench/request-instructions-child.ts).
 * Unlike bench/instructions.ts, whose gateway runs its timers and the store's background reads over a window
 * that lasts four times longer on a loaded machine, nothing here depends on the window's length. Its "rest"
 * (without the collector and the compilers) still scatters by 10-20 k of about 600 k between runs of one
 * commit on a shared VM (bench/JOURNAL.md 2026-11-28 17:55): compare several rounds, and count a smaller change
 * on its own path. The client's share (undici sending and reading) is in every count alike. Read a
 * kept dump with `callgrind_annotate` (`--node-flags --liftoff-only,--perf-basic-prof` names JIT code in
 * /tmp/perf-<pid>.map).
 */
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { countChildRounds } from './callgrind-rounds.ts';
import type { BenchDatabase } from './gateway-setup.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '15000' },
    rounds: { type: 'string', default: '2' },
    database: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
  },
});

const thousands = (count: number) => `${(count / 1e3).toFixed(1)} k`;

if (values.child) {
  const { runRequestChild } = await import('./request-instructions-child.ts');
  await runRequestChild({ requests: Number(values.requests), warmup: Number(values.warmup), rounds: Number(values.rounds), database: values.database as BenchDatabase });
} else {
  // The child's HOST names valgrind's gdbserver pipes: callgrind_control must see the same (bench/instructions.ts).
  process.env.HOST = '127.0.0.1';
  const rounds = await countChildRounds({
    script: new URL(import.meta.url).pathname,
    args: ['--child', '--requests', values.requests, '--warmup', values.warmup, '--rounds', values.rounds, '--database', values.database],
    nodeFlags: values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS],
    rounds: Number(values.rounds),
    name: 'requests',
    keepDumps: values['keep-dumps'],
  });
  console.log(`instructions per JSON request, gateway and client (callgrind, ${values.requests} requests a round after ${values.warmup}, ${values.database}), total / GC / compilers / rest:`);
  for (const counts of rounds) console.log(`  ${thousands(counts.total)} / ${thousands(counts.gc)} / ${thousands(counts.compiler)} / ${thousands(counts.total - counts.gc - counts.compiler)}`);
}
