/**
 * `node bench/allocation-profile.ts [--requests 4000] [--connections 64] [--warmup 10] [--modes json,stream]
 * [--database pglite|postgres] [--flush-ms 600000] [--interval 512] [--top 30] [--keep <dir>] [--gateway-flags a,b]
 * [--survivors]`, or
 * `node bench/allocation-profile.ts --read <file.heapprofile> --requests <n> [--against <before.heapprofile>]`
 * (a kept profile again, or two compared by folder of src/ and by library): the bytes the gateway allocates
 * per request, and where. The fake upstream and the gateway start as `bench/instructions.ts` starts them (the
 * gateway in its own process, with its production flags and a BYOK credential); after a warm-up, V8's sampling
 * heap profiler runs in the gateway over a fixed number of requests of each mode, keeping the samples of
 * objects the collector freed since (so it counts everything allocated, most of which is garbage by the time
 * it is read). Each sample's size is scaled by the profiler to an estimate of the bytes it stands for.
 *
 * A sample names the functions on the stack, not lines (a row shows the function's first line), and an
 * optimised function's stack frame stands for what was inlined into it: for a sharper call site, run the
 * gateway without inlining
 * (`--gateway-flags=--liftoff-only,--no-turbo-inlining,--no-maglev-inlining`), which also leaves out what
 * escape analysis would have kept off the heap, so compare totals of runs with the same flags only.
 *
 * The tables divide by the measured requests: by area of the allocating frame (a package, a file of src/,
 * Node's internals), by gateway call site (the innermost src/ frame on the stack, so a library's allocation is
 * charged to the function of ours that asked for it; after an `await` the stack starts at the function that
 * resumed), by src/ file inclusive, and by allocating function. A
 * sample interval of 512 bytes over a few thousand requests puts each row within a few percent; rows of under
 * 100 B per request are noise. The gateway's timers (record and spend flushes) allocate per batch, not per
 * request, and land in the window when they fire: `--flush-ms` is theirs, as in `bench/instructions.ts`.
 *
 * `--survivors` leaves out the samples of objects the young-generation collector freed: what is left outlived
 * a scavenge, which for a gateway under load means promoted to the old generation (or still young when the
 * window closed: a window of many requests makes that share small). Promoted garbage is what grows the old
 * generation between full collections, and with it the peak heap RSS keeps (bench/JOURNAL.md). Run it with
 * `--flush-ms 1000` (the production flush) so that queued records count as they do in production.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { areaOf } from './profile-summary.ts';
import { describeGateway, runWindow, windowModes, windowOptions, withWindowedGateway } from './windowed-gateway.ts';

/** The parts of a V8 sampling heap profile (`HeapProfiler.stopSampling`) read here. */
interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Bytes attributed to one key. */
type Tally = Map<string, number>;

const { values } = parseArgs({
  options: {
    ...windowOptions({ requests: '4000', flushMs: '600000' }),
    interval: { type: 'string', default: '512' },
    top: { type: 'string', default: '30' },
    keep: { type: 'string' },
    read: { type: 'string' },
    against: { type: 'string' },
    survivors: { type: 'boolean', default: false },
  },
});
const top = Number(values.top);

function add(tally: Tally, key: string, bytes: number): void {
  tally.set(key, (tally.get(key) ?? 0) + bytes);
}

function frameName(frame: HeapNode['callFrame']): string {
  const where = frame.url ? ` ${areaOf(frame.url, frame.functionName)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

const isSource = (url: string): boolean => /\/src\//.test(url) && !url.includes('/node_modules/');

/** Every tally of one profile, in bytes over the whole window. */
export function tallyProfile(head: HeapNode): { total: number; byArea: Tally; bySite: Tally; byFile: Tally; byFunction: Tally } {
  const tallies = { total: 0, byArea: new Map(), bySite: new Map(), byFile: new Map(), byFunction: new Map() };
  const visit = (node: HeapNode, site: string | undefined, files: readonly string[]): void => {
    const { url, functionName } = node.callFrame;
    const area = areaOf(url, functionName);
    const source = isSource(url);
    const here = source ? frameName(node.callFrame) : site;
    const onStack = source && !files.includes(area) ? [...files, area] : files;
    if (node.selfSize > 0) {
      tallies.total += node.selfSize;
      add(tallies.byArea, area, node.selfSize);
      add(tallies.bySite, here ?? `(no src/ frame) ${area}`, node.selfSize);
      add(tallies.byFunction, frameName(node.callFrame), node.selfSize);
      for (const file of onStack) add(tallies.byFile, file, node.selfSize);
    }
    for (const child of node.children) visit(child, here, onStack);
  };
  visit(head, undefined, []);
  return tallies;
}

function table(title: string, tally: Tally, total: number, requests: number): string[] {
  const rows = [...tally.entries()].sort((left, right) => right[1] - left[1]).slice(0, top);
  return [
    '',
    `| ${title} | B/request | % |`,
    '|---|--:|--:|',
    ...rows.map(([key, bytes]) => `| ${key.replaceAll('|', '\\|')} | ${(bytes / requests).toFixed(0)} | ${((bytes / total) * 100).toFixed(1)} |`),
  ];
}

/** The report of one profile over `requests` requests. */
export function summarizeHeapProfile(head: HeapNode, requests: number, label: string, what = 'allocated'): string {
  const { total, byArea, bySite, byFile, byFunction } = tallyProfile(head);
  return [
    `### ${label}: ${(total / requests / 1024).toFixed(1)} KB ${what} per request (${requests} requests)`,
    ...table('allocating area', byArea, total, requests),
    ...table('gateway call site (innermost src/ frame)', bySite, total, requests),
    ...table('src/ file on the stack (inclusive)', byFile, total, requests),
    ...table('allocating function', byFunction, total, requests),
    '',
  ].join('\n');
}

// A folder of src/, a library, or Node's internals; V8's builtins (no script) are charged to their caller's.
function folderOf(url: string, functionName: string, caller: string | undefined): string {
  const area = areaOf(url, functionName);
  if (!url) return area === '(native)' || area === '(V8 API)' ? (caller ?? area) : area;
  if (area.startsWith('node:')) return 'node internals';
  const folder = /^src\/([^/]+)\//.exec(area);
  return folder ? `src/${folder[1]}/` : area;
}

function tallyByFolder(head: HeapNode): { total: number; byFolder: Tally } {
  const tallies = { total: 0, byFolder: new Map<string, number>() };
  const visit = (node: HeapNode, caller: string | undefined): void => {
    const folder = folderOf(node.callFrame.url, node.callFrame.functionName, caller);
    if (node.selfSize > 0) {
      tallies.total += node.selfSize;
      add(tallies.byFolder, folder, node.selfSize);
    }
    for (const child of node.children) visit(child, folder);
  };
  visit(head, undefined);
  return tallies;
}

/** Two profiles of the same number of requests side by side, by folder of src/ and by library. */
export function compareHeapProfiles(before: HeapNode, after: HeapNode, requests: number): string {
  const old = tallyByFolder(before);
  const now = tallyByFolder(after);
  const perRequest = (bytes: number | undefined): number => Math.round((bytes ?? 0) / requests);
  const keys = [...new Set([...old.byFolder.keys(), ...now.byFolder.keys()])].sort((left, right) => (old.byFolder.get(right) ?? 0) - (old.byFolder.get(left) ?? 0));
  const row = (key: string, left: number, right: number): string => `| ${key} | ${left} | ${right} | ${right - left >= 0 ? '+' : ''}${right - left} |`;
  return [
    '| allocating code (builtins charged to their caller) | before B/request | after B/request | change |',
    '|---|--:|--:|--:|',
    ...keys.slice(0, top).map((key) => row(key, perRequest(old.byFolder.get(key)), perRequest(now.byFolder.get(key)))),
    row('**total**', perRequest(old.total), perRequest(now.total)),
  ].join('\n');
}

async function profileGateway(): Promise<void> {
  if (values.keep) mkdirSync(values.keep, { recursive: true });
  const directory = values.keep ?? mkdtempSync(join(tmpdir(), 'switchboard-allocations-'));
  try {
    await withWindowedGateway(values, async (gateway) => {
      const what = values.survivors ? 'outliving a scavenge' : 'allocated';
      const kept = values.survivors ? 'objects the young-generation collector freed left out' : 'collected objects included';
      console.log(`Allocations per request${values.survivors ? ' that outlived a scavenge' : ''} (sampling heap profiler, interval ${values.interval} B, ${kept}), ${describeGateway(values)}.\n`);
      for (const mode of windowModes(values)) {
        const path = join(directory, `gateway-${mode}.heapprofile`);
        const result = await runWindow(gateway, values, mode, {
          onMeasureStart: () => gateway.child.startHeapSampling(Number(values.interval), values.survivors),
          onMeasureEnd: () => gateway.child.stopHeapSampling(path),
        });
        const profile = JSON.parse(readFileSync(path, 'utf8')) as { head: HeapNode };
        console.log(summarizeHeapProfile(profile.head, result.requests, mode, what));
      }
    });
  } finally {
    if (values.keep) console.error(`heap profiles kept in ${directory}`);
    else rmSync(directory, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const read = (path: string): HeapNode => (JSON.parse(readFileSync(path, 'utf8')) as { head: HeapNode }).head;
  if (values.read && values.against) console.log(compareHeapProfiles(read(values.against), read(values.read), Number(values.requests)));
  else if (values.read) console.log(summarizeHeapProfile(read(values.read), Number(values.requests), values.read));
  else await profileGateway();
}
