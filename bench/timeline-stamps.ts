/**
 * What the two timeline scripts share (bench/latency-timeline.ts, bench/stream-timeline.ts): reading the
 * stamps their preloads wrote in a proxy process, and the median of a part.
 */
import { readFileSync } from 'node:fs';

/** The median of `values` (sorted in place). */
export function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

/** A proxy's stamps by request sequence, from the file its preload wrote: one line per request, `sequence t1 t2 …`. */
export function proxyStamps(file: string): Map<number, bigint[]> {
  const rows = new Map<number, bigint[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const [sequence, ...times] = line.split(' ');
    rows.set(Number(sequence), times.map(BigInt));
  }
  return rows;
}
