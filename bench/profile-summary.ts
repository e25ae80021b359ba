/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. `npm run bench -- --targets gateway --profile
 * <dir>`): where the busy time went, as self time per function, and as self and inclusive time per area (a
 * package in node_modules, a file of src/, Node's internals, the garbage collector). Idle time is left out of
 * the percentages, so they read as "share of the CPU the process actually used"; so is the profiler's own
 * work (the `node:inspector` session the bench drives over IPC, which serialises the profile when it stops).
 *
 * Usage: `node bench/profile-summary.ts <file.cpuprofile> [top=25]`
 */
import { readFileSync } from 'node:fs';

/** The parts of a V8 CPU profile this summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Time in microseconds attributed to one key. */
type Tally = Map<string, number>;

/** The area a script URL belongs to: a package name, a file of this repository, or Node's internals. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? url);
  }
  if (url.startsWith('node:')) return url.split('/')[0] === 'node:internal' ? `node:${url.split('/')[1] ?? 'internal'}` : url;
  const repository = url.match(/\/(src|bench|test|generated)\/(.*)$/);
  return repository ? `${repository[1]}/${repository[2]}` : url;
}

function add(tally: Tally, key: string, micros: number): void {
  tally.set(key, (tally.get(key) ?? 0) + micros);
}

function top(tally: Tally, busy: number, count: number): string[] {
  return [...tally.entries()]
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(([key, micros]) => `${((micros / busy) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}

/** Reads a profile and returns the report as text. */
export function summarizeProfile(profile: CpuProfile, count: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });

  const selfByFunction: Tally = new Map();
  const selfByArea: Tally = new Map();
  const inclusiveByArea: Tally = new Map();
  let busy = 0;
  let idle = 0;
  // Walk the call tree once, carrying the areas on the current stack so each sample counts once per area.
  const visit = (id: number, stackAreas: readonly string[]): void => {
    const node = byId.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    if (area === 'node:inspector') return;
    const areas = stackAreas.includes(area) ? stackAreas : [...stackAreas, area];
    const micros = selfMicros.get(id) ?? 0;
    if (functionName === '(idle)') idle += micros;
    else if (micros > 0) {
      busy += micros;
      add(selfByFunction, `${functionName || '(anonymous)'} ${url ? `${areaOf(url, functionName)}:${lineNumber + 1}` : ''}`, micros);
      add(selfByArea, area, micros);
      for (const onStack of areas) add(inclusiveByArea, onStack, micros);
    }
    for (const child of node.children ?? []) visit(child, areas);
  };
  const root = profile.nodes[0];
  if (root) visit(root.id, []);

  return [
    `busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms; percentages are of busy time`,
    '',
    'self time by function:',
    ...top(selfByFunction, busy, count),
    '',
    'self time by area:',
    ...top(selfByArea, busy, count),
    '',
    'inclusive time by area (a sample counts once for every area on its stack):',
    ...top(inclusiveByArea, busy, count),
  ].join('\n');
}

const file = process.argv[2];
if (import.meta.main) {
  if (!file) {
    console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(summarizeProfile(profile, Number(process.argv[3] ?? 25)));
}
