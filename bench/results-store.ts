/**
 * bench/results.md is built from three runs that take very different times: the main run (load, memory,
 * probe), the 10-minute soak and the open streams. Each run stores its section and figures in
 * bench/results.json; results.md is then rendered from all stored sections, with the aims checked against
 * the latest figures of each.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { aimLines, type OpenStreamsFigures, type SoakFigures } from './aims.ts';
import type { MemoryResult, ProbeRow, ScenarioResult } from './results-table.ts';
import type { ObservabilityCost } from './observability-run.ts';

/** One stored section: its markdown as rendered when it ran. */
interface Section {
  markdown: string;
}

/** Everything results.json holds. */
export interface StoredResults {
  /** `observabilityCost` is absent from runs stored before it was measured. */
  main?: Section & { scenarios: ScenarioResult[]; memory: MemoryResult[]; probes: ProbeRow[]; observabilityCost?: ObservabilityCost[] };
  soak?: Section & { figures: SoakFigures };
  openStreams?: Section & { figures: OpenStreamsFigures };
}

const JSON_FILE = new URL('./results.json', import.meta.url);
const MARKDOWN_FILE = new URL('./results.md', import.meta.url);

/** Reads results.json (empty when absent). */
export function readStoredResults(): StoredResults {
  return existsSync(JSON_FILE) ? (JSON.parse(readFileSync(JSON_FILE, 'utf8')) as StoredResults) : {};
}

/** The whole of results.md from the stored sections. */
export function renderStoredResults(stored: StoredResults): string {
  const aims = aimLines({
    scenarios: stored.main?.scenarios ?? [],
    memory: stored.main?.memory ?? [],
    probes: stored.main?.probes ?? [],
    observabilityCost: stored.main?.observabilityCost ?? [],
    soak: stored.soak?.figures,
    openStreams: stored.openStreams?.figures,
  });
  return [
    '# Switchboard benchmark',
    '',
    'Written by `npm run bench` (the main run), `npm run bench -- --soak` and `npm run bench -- --streams 1000`; each run replaces its own section and the aims below are re-checked against the latest figures of each. Only ratios within one run mean anything on a shared machine.',
    '',
    '## Against the aims',
    '',
    ...aims,
    '',
    '## Main run',
    '',
    stored.main?.markdown ?? 'Not run yet.',
    '',
    '## Soak',
    '',
    stored.soak?.markdown ?? 'Not run yet.',
    '',
    '## Open streams',
    '',
    stored.openStreams?.markdown ?? 'Not run yet.',
    '',
  ].join('\n');
}

/** Stores one section and rewrites results.json and results.md. */
export function storeSection<K extends keyof StoredResults>(key: K, section: NonNullable<StoredResults[K]>): void {
  const stored = readStoredResults();
  stored[key] = section;
  writeFileSync(JSON_FILE, `${JSON.stringify(stored, null, 1)}\n`);
  writeFileSync(MARKDOWN_FILE, renderStoredResults(stored));
}
