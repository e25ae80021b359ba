/**
 * Where a process's resident memory lies, read from `/proc/<pid>/smaps`: V8's heap pages, malloc's heaps, and
 * the rest. RSS alone cannot tell a V8 heap that kept its peak from native memory that leaks or fragments,
 * and neither can `process.memoryUsage()`: its `heapTotal` leaves out the pages V8 keeps in its page pool
 * after a collection frees them (released only by a memory-reducing collection, never under steady load), and
 * it swings by tens of megabytes with the collector's phase at the moment it is read.
 *
 * The classes follow from how these allocators map memory on Linux x64 with Node's default build (no pointer
 * compression):
 * - V8 maps each regular heap page (old, new, code-metadata spaces: 256 KiB) as an anonymous mapping of its
 *   own, aligned to 256 KiB. Large objects, code space and WebAssembly memory are other mappings ("other").
 * - glibc's main arena is the `[heap]` (brk) mapping; each further arena is an anonymous mapping at a
 *   64 MiB-aligned address of at most 64 MiB (its unused tail is a separate `---p` mapping, not resident).
 *   Blocks above malloc's mmap threshold are mappings of their own and count as "other".
 * A 256 KiB block malloc maps by itself would be counted as a V8 page; at 256 KiB exactly that is rare.
 */
import { readFileSync } from 'node:fs';

/** Resident bytes by kind of mapping. */
export interface MappingBreakdown {
  /** Anonymous 256 KiB mappings at 256 KiB-aligned addresses: V8 heap pages, pooled ones included. */
  v8Pages: number;
  /** `[heap]` and 64 MiB-aligned anonymous mappings: glibc's arenas. */
  malloc: number;
  /** Every other anonymous mapping: large objects, code, WebAssembly memory, big malloc blocks, stacks. */
  otherAnonymous: number;
  /** Mappings of files (the Node binary, shared libraries) and special ones (`[stack]`, `[vdso]`). */
  fileAndSpecial: number;
}

const V8_PAGE_BYTES = 256 * 1024;
const ARENA_BYTES = 64 * 1024 * 1024;
const HEADER = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/;
const RSS = /^Rss:\s+(\d+) kB$/;

function kindOf(start: bigint, end: bigint, name: string): keyof MappingBreakdown {
  if (name === '[heap]') return 'malloc';
  if (name !== '') return 'fileAndSpecial';
  const size = end - start;
  if (size === BigInt(V8_PAGE_BYTES) && start % BigInt(V8_PAGE_BYTES) === 0n) return 'v8Pages';
  if (size <= BigInt(ARENA_BYTES) && start % BigInt(ARENA_BYTES) === 0n) return 'malloc';
  return 'otherAnonymous';
}

/** Classifies the mappings of one `smaps` text and sums their resident bytes by kind. */
export function breakdownOfSmaps(text: string): MappingBreakdown {
  const totals: MappingBreakdown = { v8Pages: 0, malloc: 0, otherAnonymous: 0, fileAndSpecial: 0 };
  let kind: keyof MappingBreakdown | undefined;
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      kind = kindOf(BigInt(`0x${header[1]}`), BigInt(`0x${header[2]}`), (header[3] ?? '').trim());
      continue;
    }
    const rss = RSS.exec(line);
    if (rss && kind) totals[kind] += Number(rss[1]) * 1024;
  }
  return totals;
}

/** The breakdown of the pids together (a process tree); a pid that is gone counts as nothing. */
export function mappingBreakdown(pids: readonly number[]): MappingBreakdown {
  const totals: MappingBreakdown = { v8Pages: 0, malloc: 0, otherAnonymous: 0, fileAndSpecial: 0 };
  for (const pid of pids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    } catch {
      continue;
    }
    const one = breakdownOfSmaps(text);
    for (const key of Object.keys(totals) as (keyof MappingBreakdown)[]) totals[key] += one[key];
  }
  return totals;
}
