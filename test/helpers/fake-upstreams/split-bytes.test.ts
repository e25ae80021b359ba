import { describe, expect, it } from 'vitest';
import { everyTwoWaySplit, splitBytes } from '#test/helpers/fake-upstreams/index.ts';

const text = 'data: {"text":"925 ÷ 5 = 185"}\n\n';

describe('splitBytes', () => {
  it.each([
    ['every 4 bytes', { every: 4 }],
    ['at given offsets', { at: [1, 17, 18, 500] }],
    ['at seeded random offsets', { seed: 42, maxChunkBytes: 6 }],
  ])('cuts %s and the pieces join back to the input', (_label, split) => {
    const pieces = splitBytes(text, split);
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).toString('utf8')).toBe(text);
  });

  it('cuts inside a multi-byte character when a boundary falls there', () => {
    const divide = Buffer.from(text).indexOf(Buffer.from('÷'));
    const [first, second] = splitBytes(text, { at: [divide + 1] });
    expect(first?.toString('utf8').endsWith('\uFFFD')).toBe(true);
    expect(second?.[0]).toBe(Buffer.from('÷')[1]);
  });

  it('gives the same cuts for the same seed and different cuts for another', () => {
    const lengths = (seed: number) => splitBytes(text, { seed }).map((piece) => piece.length);
    expect(lengths(7)).toEqual(lengths(7));
    expect(lengths(7)).not.toEqual(lengths(8));
  });

  it('keeps an empty input as one empty piece and rejects a zero step', () => {
    expect(splitBytes('', { every: 3 })).toEqual([Buffer.alloc(0)]);
    expect(() => splitBytes(text, { every: 0 })).toThrow(RangeError);
  });

  it('lists every two-way split', () => {
    const splits = everyTwoWaySplit('abc');
    expect(splits.map((pieces) => pieces.map((piece) => piece.toString()))).toEqual([
      ['a', 'bc'],
      ['ab', 'c'],
    ]);
  });
});
