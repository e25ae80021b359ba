/**
 * How to cut a byte sequence: every N bytes, at given offsets, or at pseudo-random offsets from a seed (so a
 * failing case can be replayed).
 */
export type ByteSplit =
  | { every: number }
  | { at: readonly number[] }
  | { seed: number; maxChunkBytes?: number };

/** A small deterministic PRNG (mulberry32): the same seed gives the same cuts on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function cutOffsets(length: number, split: ByteSplit): number[] {
  if ('every' in split) {
    if (!Number.isInteger(split.every) || split.every < 1) throw new RangeError('every must be a positive integer');
    const offsets: number[] = [];
    for (let offset = split.every; offset < length; offset += split.every) offsets.push(offset);
    return offsets;
  }
  if ('at' in split) {
    return [...new Set(split.at)].filter((offset) => offset > 0 && offset < length).sort((a, b) => a - b);
  }
  const random = seededRandom(split.seed);
  const maxChunkBytes = split.maxChunkBytes ?? 16;
  const offsets: number[] = [];
  for (let offset = 1 + Math.floor(random() * maxChunkBytes); offset < length; ) {
    offsets.push(offset);
    offset += 1 + Math.floor(random() * maxChunkBytes);
  }
  return offsets;
}

/**
 * Cuts a string (as UTF-8) or buffer into pieces at byte boundaries, regardless of character, line or event
 * boundaries: a multi-byte character may be split across two pieces, as it may be on a real socket.
 * Concatenating the pieces always gives back the input.
 */
export function splitBytes(input: string | Uint8Array, split: ByteSplit): Buffer[] {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const offset of cutOffsets(bytes.length, split)) {
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  if (start < bytes.length || bytes.length === 0) pieces.push(bytes.subarray(start));
  return pieces;
}

/**
 * Every way to cut the input in two (one cut at each byte offset): for exhaustive tests of small streams.
 */
export function everyTwoWaySplit(input: string | Uint8Array): Buffer[][] {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  const splits: Buffer[][] = [];
  for (let offset = 1; offset < bytes.length; offset += 1) {
    splits.push([bytes.subarray(0, offset), bytes.subarray(offset)]);
  }
  return splits;
}
