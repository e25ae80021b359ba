/**
 * `node bench/stream-instructions.ts [--streams 5000] [--warmup 20000] [--rounds 2] [--node-flags a,b]
 * [--keep-dumps]`: the instructions one streamed answer costs on the gateway's stream path, from the
 * passthrough's events to the SSE writer's last write, counted by valgrind's callgrind in one process (see
 * bench/stream-instructions-child.ts for what is and is not in the path). A child process under valgrind
 * (with the gateway's `--liftoff-only`) runs the bench's seven-event answer through it; instrumentation is on
 * (`callgrind_control`) for exactly the measured streams of each round, after an uninstrumented warm-up. No
 * socket, timer or other process takes part, so a count repeats to within a few hundred instructions and
 * tells two versions of the stream path apart where `bench/instructions.ts` (the whole request, against a
 * load generator) scatters by several percent. Read a kept dump with `callgrind_annotate`
 * (`--node-flags --liftoff-only,--perf-basic-prof` names JIT code in /tmp/perf-<pid>.map).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gatewayEnvironmentDefaults, GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { callgrindControl, readNewDumps, type Counts } from './callgrind.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    child: { type: 'boolean', default: false },
  },
});

/** Messages between this script and its child under valgrind. */
type ChildMessage = { ready: true } | { measured: number };

const thousands = (count: number) => `${(count / 1e3).toFixed(1)} k`;

if (values.child) {
  const { runChild } = await import('./stream-instructions-child.ts');
  await runChild({ streams: Number(values.streams), warmup: Number(values.warmup), rounds: Number(values.rounds) });
} else {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-stream-instructions-'));
  const nodeFlags = values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS];
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, ['--child', '--streams', values.streams, '--warmup', values.warmup, '--rounds', values.rounds], {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(directory, 'streams.%p')}`, process.execPath, ...nodeFlags],
    env: { ...process.env, ...gatewayEnvironmentDefaults(), SWITCHBOARD_NODE_FLAGS: 'off' },
  });
  const messages: ChildMessage[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (message) => {
    messages.push(message as ChildMessage);
    wake?.();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = async (): Promise<ChildMessage> => {
    while (messages.length === 0) {
      const woke = new Promise<void>((resolve) => (wake = resolve));
      const code = await Promise.race([woke.then(() => undefined), exited]);
      if (code !== undefined) throw new Error(`the child exited (${code}) before answering`);
    }
    return messages.shift() as ChildMessage;
  };
  try {
    const seen = new Set<string>();
    const rounds: Counts[] = [];
    for (let round = 0; round < Number(values.rounds); round += 1) {
      await next(); // ready
      await callgrindControl(child.pid, '--instr=on');
      child.send('go');
      const done = await next();
      await callgrindControl(child.pid, '--instr=off');
      await callgrindControl(child.pid, '--dump');
      if (!('measured' in done)) throw new Error('unexpected message');
      const counts = readNewDumps(directory, seen, 'streams.');
      rounds.push({ total: counts.total / done.measured, gc: counts.gc / done.measured, compiler: counts.compiler / done.measured });
      child.send('next');
    }
    if ((await exited) !== 0) throw new Error('the child failed');
    console.log(`instructions per stream (callgrind, ${values.streams} streams a round after ${values.warmup}), total / GC / compilers / rest:`);
    for (const counts of rounds) console.log(`  ${thousands(counts.total)} / ${thousands(counts.gc)} / ${thousands(counts.compiler)} / ${thousands(counts.total - counts.gc - counts.compiler)}`);
  } finally {
    child.kill();
    if (values['keep-dumps']) console.error(`callgrind dumps kept in ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}
