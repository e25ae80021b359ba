/**
 * The parent side of the one-process callgrind counts (`bench/record-instructions.ts`,
 * `bench/stream-instructions.ts`): it forks the script's child under valgrind with instrumentation off and
 * counts each round's measured work. The child says `{ ready: true }` before a round, waits for `go` (sent once
 * instrumentation is on), does the round, says `{ measured: n }`, and waits for `next` (sent once the dump is
 * written), so nothing else it does is counted.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayEnvironmentDefaults } from '#src/serve/runtime-settings.ts';
import { callgrindControl, readNewDumps, type Counts } from './callgrind.ts';

/** Messages from the child under valgrind. */
type ChildMessage = { ready: true } | { measured: number };

/** What to fork and count. */
export interface ChildRoundsOptions {
  /** The script to fork and the arguments that make it the child (`args` may hold `{directory}`). */
  script: string;
  args: string[];
  /** Node's flags in the child (the gateway's, unless a run asks for others). */
  nodeFlags: string[];
  rounds: number;
  /** A name for the temporary directory and the dumps. */
  name: string;
  keepDumps: boolean;
}

/** Each round's instructions per measured unit (total, collector, compilers). */
export async function countChildRounds(options: ChildRoundsOptions): Promise<Counts[]> {
  const directory = mkdtempSync(join(tmpdir(), `switchboard-${options.name}-`));
  const child = fork(options.script, options.args.map((arg) => arg.replace('{directory}', directory)), {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(directory, `${options.name}.%p`)}`, process.execPath, ...options.nodeFlags],
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
    for (let round = 0; round < options.rounds; round += 1) {
      await next(); // ready
      await callgrindControl(child.pid, '--instr=on');
      child.send('go');
      const done = await next();
      await callgrindControl(child.pid, '--instr=off');
      await callgrindControl(child.pid, '--dump');
      if (!('measured' in done)) throw new Error('unexpected message');
      const counts = readNewDumps(directory, seen, `${options.name}.`);
      rounds.push({ total: counts.total / done.measured, gc: counts.gc / done.measured, compiler: counts.compiler / done.measured });
      child.send('next');
    }
    if ((await exited) !== 0) throw new Error('the child failed');
    return rounds;
  } finally {
    child.kill();
    if (options.keepDumps) console.error(`callgrind dumps kept in ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}
