/**
 * `npm run bench -- --soak`: ten minutes of mixed load on the gateway (half the connections ask for JSON,
 * half for streams; 32 in all), its RSS sampled every 5 s. A leak or unbounded cache shows as RSS still
 * climbing after the first minute; the aim is the end within 10% of the value after minute 1. Each minute
 * also splits the resident memory by kind of mapping (bench/memory-mappings.ts): V8's heap pages, pooled ones
 * included, against malloc's arenas, which `process.memoryUsage()` cannot tell apart.
 */
import { runLoad, type LoadResult } from './load-generator.ts';
import { megabytes, processTree, rssBytes, RssSampler } from './process-stats.ts';
import { fixed } from './results-table.ts';
import type { SoakFigures } from './aims.ts';
import type { Target } from './targets.ts';
import type { ChildMemory } from './child-process.ts';
import { mappingBreakdown, type MappingBreakdown } from './memory-mappings.ts';

/** How long and how hard to soak. */
export interface SoakOptions {
  durationMs: number;
  connections: number;
  sampleEveryMs: number;
  body(stream: boolean): string;
}

/** The soak's figures and its markdown section. */
export interface SoakOutcome {
  figures: SoakFigures;
  markdown: string;
}

function rssAt(samples: readonly { atMs: number; bytes: number }[], atMs: number): number {
  let best = samples[0];
  for (const sample of samples) if (Math.abs(sample.atMs - atMs) < Math.abs((best?.atMs ?? 0) - atMs)) best = sample;
  return best?.bytes ?? Number.NaN;
}

/** Runs the soak against one target and reports RSS over time. */
export async function runSoak(target: Target, options: SoakOptions): Promise<SoakOutcome> {
  const sampler = new RssSampler(target.pid);
  const idleBytes = sampler.sample();
  const startedAt = performance.now();
  const half = Math.max(1, Math.floor(options.connections / 2));
  const drive = (stream: boolean): Promise<LoadResult> =>
    runLoad({
      origin: target.origin,
      path: target.path,
      headers: target.headers,
      body: options.body(stream),
      connections: half,
      warmupMs: 0,
      durationMs: options.durationMs,
      maxRequests: 20_000_000,
      stream,
      onMeasureStart: async () => undefined,
      onMeasureEnd: async () => undefined,
    });
  sampler.start(options.sampleEveryMs);
  // The V8 heap at each minute, beside RSS, and where the resident memory lies: `heapTotal` leaves out the pages
  // V8 pools after a collection, so RSS may climb while it stays flat; the mappings show V8's pages and malloc's.
  const heapByMinute: (ChildMemory | undefined)[] = [];
  const mappingsByMinute: MappingBreakdown[] = [];
  const heapTimer = setInterval(() => {
    const minute = heapByMinute.length;
    heapByMinute.push(undefined);
    mappingsByMinute.push(mappingBreakdown(processTree(target.pid)));
    target.child.memory().then((memory) => (heapByMinute[minute] = memory), () => undefined);
  }, 60_000);
  const [json, stream] = await Promise.all([drive(false), drive(true)]);
  clearInterval(heapTimer);
  sampler.stop();
  // Idle again: what of the growth was garbage the gateway gives back (heap compaction checks every 5 s).
  await new Promise((resolve) => setTimeout(resolve, 20_000));
  const idleAfterBytes = rssBytes(processTree(target.pid));
  const heapAfter = await target.child.memory();
  const samples = sampler.samples.filter((sample) => sample.atMs >= startedAt).map((sample) => ({ atMs: sample.atMs - startedAt, bytes: sample.bytes }));
  const afterFirstMinute = rssAt(samples, 60_000);
  const atEnd = samples.at(-1)?.bytes ?? Number.NaN;
  const errors = json.non2xx + json.failures + stream.non2xx + stream.failures;
  const minutes = Math.floor(options.durationMs / 60_000);
  const heapCells = (memory: ChildMemory | undefined) => (memory ? `${megabytes(memory.heapUsed)} / ${megabytes(memory.heapTotal)} | ${megabytes(memory.external)}` : 'n/a | n/a');
  const mappingCells = (mappings: MappingBreakdown | undefined) => (mappings ? `${megabytes(mappings.v8Pages)} | ${megabytes(mappings.malloc)} | ${megabytes(mappings.otherAnonymous)}` : 'n/a | n/a | n/a');
  const perMinute = Array.from({ length: minutes }, (_, index) => `| ${index + 1} | ${megabytes(rssAt(samples, (index + 1) * 60_000))} | ${heapCells(heapByMinute[index])} | ${mappingCells(mappingsByMinute[index])} |`);
  const first = mappingsByMinute[0];
  const last = mappingsByMinute.at(-1);
  const growth = (key: keyof MappingBreakdown): string => {
    if (!first || !last) return 'n/a';
    const change = Math.round((last[key] - first[key]) / 2 ** 20);
    return `${change >= 0 ? '+' : ''}${change}`;
  };
  const date = new Date().toISOString();
  const drift = atEnd / afterFirstMinute - 1;
  const markdown = [
    `Run on ${date}: ${fixed(options.durationMs / 60_000, 1)} minutes against the ${target.name}, ${half} connections asking for JSON and ${half} for streams at once, RSS sampled every ${options.sampleEveryMs / 1000} s.`,
    '',
    `- requests: ${json.requests} JSON (${fixed(json.requestsPerSecond, 0)}/s, p50 ${fixed(json.p50Ms, 2)} ms) and ${stream.requests} streams (${fixed(stream.requestsPerSecond, 0)}/s, p50 ${fixed(stream.p50Ms, 2)} ms); errors ${errors}${json.firstProblem ?? stream.firstProblem ? ` (first: ${json.firstProblem ?? stream.firstProblem})` : ''}`,
    `- RSS idle before the soak ${megabytes(idleBytes)} MB, after minute 1 ${megabytes(afterFirstMinute)} MB, at the end ${megabytes(atEnd)} MB (${drift >= 0 ? '+' : ''}${fixed(drift * 100, 1)}%), highest ${megabytes(Math.max(...samples.map((sample) => sample.bytes)))} MB`,
    `- resident memory from minute 1 to minute ${mappingsByMinute.length}, by kind of mapping: V8 heap pages ${growth('v8Pages')} MB, malloc arenas ${growth('malloc')} MB, other anonymous ${growth('otherAnonymous')} MB`,
    `- idle again 20 s after the soak: RSS ${megabytes(idleAfterBytes)} MB, V8 heap ${megabytes(heapAfter.heapUsed)} MB live of ${megabytes(heapAfter.heapTotal)} MB committed`,
    '',
    '| minute | RSS MB | V8 heap live / committed MB | external MB (ArrayBuffers, WebAssembly memory reserved) | V8 heap pages resident MB (pooled included) | malloc arenas resident MB | other anonymous resident MB |',
    '|--:|--:|--:|--:|--:|--:|--:|',
    ...perMinute,
  ].join('\n');
  return { figures: { date, rssAfterFirstMinuteBytes: afterFirstMinute, rssAtEndBytes: atEnd, errors }, markdown };
}
