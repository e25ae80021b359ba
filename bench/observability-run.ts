/**
 * The CPU that generation records and one OTLP destination add to a generation, as `npm run bench` reports it
 * for issue 11's aim (at most 20 µs). The load rows of the same run (a gateway with records off beside one with
 * records and a destination) differ by less than their own noise on a shared machine, so the aim is judged by
 * `bench/observability-cost.ts` instead: the same record queue, batch insert, broadcaster and official
 * exporter, driven in one process of their own and measured by that process's CPU time, three rounds after a
 * warm-up. It runs once per database the gateway can use here: embedded PGlite, and PostgreSQL when
 * DATABASE_URL is set.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';

/** The prefix of the line observability-cost.ts prints its figures on. */
export const RESULT_PREFIX = 'OBSERVABILITY-COST ';

/** What one in-process measurement found. */
export interface ObservabilityCost {
  driver: 'pglite' | 'postgres';
  generations: number;
  /** CPU µs per generation, one figure per round. */
  microsPerGeneration: number[];
}

const SCRIPT = fileURLToPath(new URL('./observability-cost.ts', import.meta.url));

/** The middle of the rounds' figures: one slow round from a neighbour's burst does not decide the verdict. */
export function medianOf(figures: readonly number[]): number {
  const sorted = [...figures].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function runOnce(driver: ObservabilityCost['driver'], generations: number): Promise<ObservabilityCost> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, 'both', String(generations), driver], { env: process.env, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
      if (error || !line) {
        reject(new Error(`observability-cost on ${driver} failed: ${error?.message ?? 'no result line'}\n${stderr}`));
        return;
      }
      const parsed = JSON.parse(line.slice(RESULT_PREFIX.length)) as ObservabilityCost;
      resolve({ driver, generations: parsed.generations, microsPerGeneration: parsed.microsPerGeneration });
    });
  });
}

/** Measures on PGlite, then on PostgreSQL when DATABASE_URL is set; one after the other, never beside the load. */
export async function measureObservabilityCost(generations = 20_000): Promise<ObservabilityCost[]> {
  const results = [await runOnce('pglite', generations)];
  if (process.env.DATABASE_URL) results.push(await runOnce('postgres', generations));
  return results;
}

/** The section of results.md: one row per database. */
export function renderObservabilityCost(costs: readonly ObservabilityCost[]): string[] {
  if (costs.length === 0) return [];
  return [
    '### Records and one OTLP destination, in one process',
    '',
    '`node bench/observability-cost.ts both <n> <database>` (issue 11\'s aim): the CPU one generation adds with generation records on (the real record queue and batch insert) and one OTLP/HTTP protobuf destination (the real broadcaster and official exporter, sampling 1, a receiver in a child process), in a process with the gateway\'s Node flags, by that process\'s CPU time over n generations, three rounds after a warm-up. The load rows above differ by less than their own noise for this.',
    '',
    '| database | generations a round | CPU µs per generation, each round | median |',
    '|---|--:|--:|--:|',
    ...costs.map((cost) => `| ${cost.driver === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL'} | ${cost.generations} | ${cost.microsPerGeneration.map((figure) => figure.toFixed(1)).join(', ')} | ${medianOf(cost.microsPerGeneration).toFixed(1)} |`),
  ];
}

/** An OTLP/HTTP receiver on 127.0.0.1 that answers every export with an empty 200 and counts them. */
export interface ExportCounter {
  port: number;
  /** Exports received so far. */
  exports(): number;
  close(): void;
}

/**
 * Starts an {@link ExportCounter} on a free port (the benches that feed one destination export to it); with
 * `answerMs`, each answer comes that long after its export arrived, as from a collector across a network.
 */
export async function startExportCounter(answerMs = 0): Promise<ExportCounter> {
  let exports = 0;
  const receiver: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      const answer = () => response.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
      if (answerMs > 0) setTimeout(answer, answerMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return { port: (receiver.address() as { port: number }).port, exports: () => exports, close: () => receiver.close() };
}
