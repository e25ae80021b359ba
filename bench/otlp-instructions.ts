/**
 * `node bench/otlp-instructions.ts [--generations 10000] [--warmup 20000] [--rounds 2] [--node-flags a,b]
 * [--keep-dumps] [--windows build,serialize,broadcast]`: the instructions one OTLP/protobuf destination costs
 * per generation, counted by valgrind's callgrind (which a busy machine does not move, unlike
 * `bench/observability-cost.ts otlp`'s CPU time), in three windows:
 *
 * - `build`: the trace context (`resolveTraceContext`, done once per generation for every destination) and the
 *   spans (`convertToOtelSpans`);
 * - `serialize`: the official exporter's protobuf serialiser over those spans, in batches of `OTLP_BATCH_SIZE`;
 * - `broadcast`: the whole path as `bench/observability-cost.ts otlp` drives it: the broadcaster's `offer`, 100
 *   generations a tick, the delivery channel, the OTLP sender and the exporter's HTTP request to a receiver on
 *   127.0.0.1 (in this parent process, which runs outside valgrind).
 *
 * The child runs under `valgrind --tool=callgrind --instr-atstart=no` with the gateway's Node flags. Each
 * window first runs uninstrumented as a warm-up, long enough for V8 to optimise the span builders (they run once
 * per generation: after 3,000 generations building took twice the instructions it takes after 20,000), then
 * `rounds` times with instrumentation on (`callgrind_control`), each round's dump read back. What is left is
 * mostly the garbage collector: a round holding a major collection counts 10-20% more, so compare the rounds
 * of two runs, not one figure (the GC and compiler columns, as bench/instructions.ts names them, show it). (A forced full collection before each round left the serialiser running
 * unoptimised code: none is made.) The generations are those of `bench/observability-cost.ts`. Needs valgrind.
 * With `--keep-dumps --node-flags=--perf-basic-prof`, JIT code in `callgrind_annotate`'s output can be named
 * by looking its addresses up in /tmp/perf-<pid>.map (the flag makes the collector itself costlier).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { callgrindControl, readNewDumps } from './callgrind.ts';
import { startExportCounter } from './observability-run.ts';

const WINDOWS = ['build', 'serialize', 'broadcast'] as const;
type Window = (typeof WINDOWS)[number];

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    port: { type: 'string' },
    generations: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '2' },
    'node-flags': { type: 'string' },
    'keep-dumps': { type: 'boolean', default: false },
    // Some of the windows only (a comma list), e.g. `build` alone, which takes a minute where all three take five.
    windows: { type: 'string', default: WINDOWS.join(',') },
  },
});

if (values.child !== undefined) {
  const { runChild } = await import('./otlp-instructions-child.ts');
  await runChild({ port: Number(values.port), generations: Number(values.generations), warmup: Number(values.warmup), rounds: Number(values.rounds), windows: values.windows.split(',') });
} else {
  await runParent();
}

async function runParent(): Promise<void> {
  // valgrind names its gdbserver pipes after $HOST: the child and callgrind_control must see the same value.
  process.env.HOST = '127.0.0.1';
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-otlp-instructions-'));
  const receiver = await startExportCounter();
  const port = receiver.port;
  const generations = Number(values.generations);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child', '', '--port', String(port), '--generations', String(generations), '--warmup', String(values.warmup), '--rounds', String(values.rounds), '--windows', values.windows], {
    execPath: 'valgrind',
    execArgv: ['--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(directory, 'otlp.%p')}`, process.execPath, ...GATEWAY_NODE_FLAGS, ...(values['node-flags']?.split(',') ?? [])],
    env: { ...process.env, SWITCHBOARD_NODE_FLAGS: 'off' },
  });
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (message) => {
    messages.push(message);
    wake?.();
  });
  const next = async (): Promise<{ type: string; window?: Window; message?: string }> => {
    while (messages.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return messages.shift() as { type: string; window?: Window; message?: string };
  };
  const seen = new Set<string>();
  try {
    console.log(`Instructions per generation (callgrind), ${generations} generations a round, one OTLP/protobuf destination.\n`);
    console.log('| window | instructions per generation | GC | compiler | rest |\n|---|--:|--:|--:|--:|');
    for (;;) {
      const message = await next();
      if (message.type === 'failed') throw new Error(message.message);
      if (message.type === 'finished') break;
      if (message.type !== 'ready' || !message.window) continue;
      readNewDumps(directory, seen);
      await callgrindControl(child.pid, '--instr=on');
      child.send({ type: 'go' });
      const done = await next();
      if (done.type === 'failed') throw new Error(done.message);
      await callgrindControl(child.pid, '--instr=off');
      await callgrindControl(child.pid, '--dump');
      const counts = readNewDumps(directory, seen);
      const per = (count: number) => `${(count / generations / 1000).toFixed(1)} k`;
      console.log(`| ${message.window} | ${per(counts.total)} | ${per(counts.gc)} | ${per(counts.compiler)} | ${per(counts.total - counts.gc - counts.compiler)} |`);
      child.send({ type: 'continue' });
    }
    console.error(`(${receiver.exports()} exports received)`);
  } finally {
    child.kill();
    receiver.close();
    if (values['keep-dumps']) console.error(`callgrind dumps kept in ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}
