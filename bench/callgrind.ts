/**
 * What the callgrind benches share (bench/instructions.ts, bench/record-instructions.ts,
 * bench/otlp-instructions.ts): switching a process's instrumentation with `callgrind_control`, and reading back
 * the instruction counts of the dumps it wrote.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Instructions counted for one target, with the parts V8's collector and optimising compilers took. */
export interface Counts {
  total: number;
  gc: number;
  compiler: number;
}

// V8's own functions are named in a dump: these are its garbage collector's and its optimising compilers'
// (TurboFan, Turboshaft, Maglev), which run on the main thread and on V8's worker threads alike. Both depend
// more on when a window falls (a major collection, code still tiering up after a short warm-up on a busy
// machine) than on the requests in it, so they are reported apart.
const GC_FUNCTION = /v8::internal::(?:\w+::)*(?:Scaveng\w*|\w*Marking\w*|MarkCompact\w*|Sweeper|\w*Evacuat\w*|RememberedSet\w*|MinorMS\w*|Heap::\w*(?:Collect|GarbageCollection|Scavenge|Mark|Sweep)\w*|IterateObjectCache|\w*RootVisitor\w*|\w*ObjectVisitor\w*)|BodyDescriptorBase::Iterate|heap::base::(?:Worklist|SlotCallbackResult)|v8::internal::\(anonymous namespace\)::IterateObjectCache|Scavenger::ScavengeObject/;
const COMPILER_FUNCTION = /v8::internal::(?:compiler|maglev|turboshaft)::|v8::internal::OptimizingCompileDispatcher/;

/**
 * The self cost of every function in one dump, summed by kind. A cost line after `calls=` is the call's
 * inclusive cost, charged to the caller's line: it is skipped, so each instruction counts once, in the
 * function that executed it. Names are given once per dump (`fn=(id) name`) and then by id. A cost line
 * starts with as many positions as the `positions:` header names (`line` by default, `instr line` with
 * `--dump-instr=yes`); the Ir count follows them, and is left out when it is zero.
 */
export function countDump(text: string): Counts {
  const names = new Map<string, string>();
  const counts: Counts = { total: 0, gc: 0, compiler: 0 };
  let kind: 'gc' | 'compiler' | undefined;
  let skipNext = false;
  let positions = 1;
  for (const line of text.split('\n')) {
    const first = line.charCodeAt(0);
    // A cost line: a position (a number, or relative to the last one: +n, -n, *), then the Ir count.
    if ((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2a) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      const cost = Number(line.split(' ')[positions] ?? 0);
      counts.total += cost;
      if (kind) counts[kind] += cost;
    } else if (line.startsWith('fn=')) {
      const match = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (!match) continue;
      const [, id = '', given] = match;
      if (given !== undefined) names.set(id, given);
      const name = names.get(id) ?? '';
      kind = COMPILER_FUNCTION.test(name) ? 'compiler' : GC_FUNCTION.test(name) ? 'gc' : undefined;
    } else if (line.startsWith('cfn=')) {
      const match = /^cfn=\((\d+)\) (.*)$/.exec(line);
      if (match?.[1] !== undefined && match[2] !== undefined) names.set(match[1], match[2]);
    } else if (line.startsWith('calls=')) skipNext = true;
    else if (line.startsWith('positions:')) positions = line.slice('positions:'.length).trim().split(/\s+/).length;
  }
  return counts;
}

/**
 * The counts of the dumps in `directory` not yet in `seen` (whose names start with `prefix`), summed; they are
 * added to `seen`, so each dump is read once.
 */
export function readNewDumps(directory: string, seen: Set<string>, prefix = ''): Counts {
  const counts: Counts = { total: 0, gc: 0, compiler: 0 };
  for (const file of readdirSync(directory)) {
    if (!file.startsWith(prefix) || seen.has(file)) continue;
    seen.add(file);
    const one = countDump(readFileSync(join(directory, file), 'utf8'));
    counts.total += one.total;
    counts.gc += one.gc;
    counts.compiler += one.compiler;
  }
  return counts;
}

/**
 * Runs `callgrind_control <command> <pid>` (`--instr=on`, `--instr=off`, `--dump`). It exits 0 even when it could
 * not reach the process, so its output decides: this throws, naming `label`, unless it reached it.
 */
export async function callgrindControl(pid: number | undefined, command: string, label = ''): Promise<void> {
  const { stdout, stderr } = await run('callgrind_control', [command, String(pid)]);
  if (!/OK/.test(stdout)) throw new Error(`callgrind_control ${command} ${pid}${label ? ` (${label})` : ''}: ${stdout}${stderr}`);
}
