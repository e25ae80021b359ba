/**
 * `node bench/stream-instructions.ts [--streams 5000] [--warmup 20000] [--rounds 2] [--node-flags a,b]
 * [--keep-dumps] [--paced] [--http]`: the instructions one streamed answer costs on the gateway's stream path, from the
 * passthrough's events to the SSE writer's last write, counted by valgrind's callgrind in one process (see
 * bench/stream-instructions-child.ts for what is and is not in the path). A child process under valgrind
 * (with the gateway's `--liftoff-only`) runs the bench's seven-event answer through it; instrumentation is on
 * (`callgrind_control`) for exactly the measured streams of each round, after an uninstrumented warm-up. No
 * socket, timer or other process takes part, so a count repeats to within a few hundred instructions and
 * tells two versions of the stream path apart where `bench/instructions.ts` (the whole request, against a
 * load generator) scatters by several percent. Read a kept dump with `callgrind_annotate`
 * (`--node-flags --liftoff-only,--perf-basic-prof` names JIT code in /tmp/perf-<pid>.map).
 */
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { countChildRounds } from './callgrind-rounds.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    paced: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
  },
});

const thousands = (count: number) => `${(count / 1e3).toFixed(1)} k`;

if (values.child) {
  const { runChild } = await import('./stream-instructions-child.ts');
  await runChild({ streams: Number(values.streams), warmup: Number(values.warmup), rounds: Number(values.rounds), paced: values.paced, http: values.http });
} else {
  const rounds = await countChildRounds({
    script: new URL(import.meta.url).pathname,
    args: ['--child', '--streams', values.streams, '--warmup', values.warmup, '--rounds', values.rounds, ...(values.paced ? ['--paced'] : []), ...(values.http ? ['--http'] : [])],
    nodeFlags: values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS],
    rounds: Number(values.rounds),
    name: 'streams',
    keepDumps: values['keep-dumps'],
  });
  console.log(`instructions per stream (callgrind, ${values.streams} streams a round after ${values.warmup}), total / GC / compilers / rest:`);
  for (const counts of rounds) console.log(`  ${thousands(counts.total)} / ${thousands(counts.gc)} / ${thousands(counts.compiler)} / ${thousands(counts.total - counts.gc - counts.compiler)}`);
}
