/**
 * `node bench/record-instructions.ts [--records 5000] [--warmup 5000] [--batch 500] [--rounds 2]
 * [--node-flags a,b] [--keep-dumps]`: the instructions one generation record costs on embedded PGlite, counted
 * by valgrind's callgrind. A child process (under valgrind, with the gateway's `--liftoff-only`) opens PGlite in
 * a temporary data directory and writes records through `insertGenerations` in batches, as the record queue
 * does; instrumentation is on (`callgrind_control`) for exactly the measured batches of each round, after an
 * uninstrumented warm-up. CPU time per record (bench/observability-cost.ts) moves by ±15% on a shared machine;
 * this count repeats within a percent or two, so it tells two versions of the write path apart. Read a kept
 * dump with `callgrind_annotate` (`--node-flags --liftoff-only,--perf-basic-prof` names JIT and WebAssembly
 * code in /tmp/perf-<pid>.map).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gatewayEnvironmentDefaults, GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { callgrindControl, readNewDumps } from './callgrind.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '5000' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '2' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});

/** Messages between this script and its child under valgrind. */
type ChildMessage = { ready: true } | { measured: number };

if (values.child) {
  const { runChild } = await import('./record-instructions-child.ts');
  await runChild({ directory: values.child, records: Number(values.records), warmup: Number(values.warmup), batch: Number(values.batch), rounds: Number(values.rounds) });
} else {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-record-instructions-'));
  const nodeFlags = values['node-flags']?.split(',') ?? [...GATEWAY_NODE_FLAGS];
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, ['--child', directory, '--records', values.records, '--warmup', values.warmup, '--batch', values.batch, '--rounds', values.rounds], {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(directory, 'records.%p')}`, process.execPath, ...nodeFlags],
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
    const figures: number[] = [];
    for (let round = 0; round < Number(values.rounds); round += 1) {
      await next(); // ready
      await callgrindControl(child.pid, '--instr=on');
      child.send('go');
      const done = await next();
      await callgrindControl(child.pid, '--instr=off');
      await callgrindControl(child.pid, '--dump');
      if (!('measured' in done)) throw new Error('unexpected message');
      figures.push(readNewDumps(directory, seen, 'records.').total / done.measured);
      child.send('next');
    }
    await exited;
    console.log(`instructions per record (callgrind, ${values.records} records a round in batches of ${values.batch}, after ${values.warmup}): ${figures.map((figure) => `${(figure / 1e3).toFixed(1)} k`).join(', ')}`);
  } finally {
    child.kill();
    if (values['keep-dumps']) console.error(`callgrind dumps kept in ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}
