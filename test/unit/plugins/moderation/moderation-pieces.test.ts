import { describe, expect, it } from 'vitest';
import { PassedPieces, inGroups, pieceDigest, piecesToScreen, splitText, runBounded } from '#src/plugins/moderation/moderation-pieces.ts';

describe('splitText', () => {
  it('keeps a short text whole', () => {
    expect(splitText('hello', 10)).toEqual(['hello']);
  });

  it('cuts after a line break in the second half of the window, else after a space, else at the limit', () => {
    expect(splitText('aaaaaa\nbbbbbbbbbb', 10)).toEqual(['aaaaaa\n', 'bbbbbbbbbb']);
    expect(splitText('aaaaaaa bbbbbbbbbb', 10)).toEqual(['aaaaaaa ', 'bbbbbbbbbb']);
    expect(splitText('a\nbbbbbbbbbbbbbbbbbb', 10)).toEqual(['a\nbbbbbbbb', 'bbbbbbbbbb']);
  });

  it('never parts a surrogate pair, and loses nothing', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(20)}`;
    const pieces = splitText(text, 10);
    expect(pieces[0]).toBe('a'.repeat(9));
    expect(pieces.join('')).toBe(text);
    expect(pieces.every((piece) => piece.length <= 10)).toBe(true);
  });
});

describe('inGroups', () => {
  it('groups in order, the last group the rest', () => {
    expect(inGroups([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inGroups([], 2)).toEqual([]);
  });
});

describe('PassedPieces', () => {
  it('forgets the least recently used digest beyond its capacity', () => {
    const passed = new PassedPieces(2);
    passed.add('a');
    passed.add('b');
    expect(passed.has('a')).toBe(true);
    passed.add('c');
    expect(passed.has('b')).toBe(false);
    expect(passed.has('a')).toBe(true);
    expect(passed.has('c')).toBe(true);
    expect(passed.size).toBe(2);
  });
});

describe('piecesToScreen', () => {
  it('leaves out the pieces passed before, for the same account and model only, and repeats', () => {
    const passed = new PassedPieces();
    passed.add(pieceDigest('acct-1', 'omni', 'old'));
    expect(piecesToScreen(['old', 'new', 'new'], passed, 'acct-1', 'omni').map((piece) => piece.text)).toEqual(['new']);
    expect(piecesToScreen(['old'], passed, 'acct-2', 'omni').map((piece) => piece.text)).toEqual(['old']);
    expect(piecesToScreen(['old'], passed, 'acct-1', 'other-model').map((piece) => piece.text)).toEqual(['old']);
  });

  it('keeps no text in clear, only digests', () => {
    expect(pieceDigest('acct-1', 'omni', 'secret text')).not.toContain('secret');
  });
});

describe('runBounded', () => {
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs at most `limit` tasks at once, results in the items\' order', async () => {
    let running = 0;
    let most = 0;
    const run = await runBounded([5, 1, 4, 2, 3, 1, 2], async (ms) => {
      running += 1;
      most = Math.max(most, running);
      await later(ms);
      running -= 1;
      return ms * 10;
    }, { limit: 3 });
    expect(most).toBe(3);
    expect(run).toEqual({ results: [50, 10, 40, 20, 30, 10, 20] });
  });

  it('starts nothing more once a result says stop or a task fails, and waits for those under way', async () => {
    const started: number[] = [];
    const stopped = await runBounded([1, 2, 3, 4], async (item) => {
      started.push(item);
      await later(item === 1 ? 1 : 20);
      return item === 1;
    }, { limit: 2, stop: (flagged) => flagged });
    expect(started).toEqual([1, 2]);
    expect(stopped.results).toEqual([true, false, undefined, undefined]);

    const failed = await runBounded([1, 2, 3], async (item) => {
      if (item === 1) throw new Error('down');
      await later(10);
      return item;
    }, { limit: 2 });
    expect(failed.results).toEqual([undefined, 2, undefined]);
    expect((failed.failure?.error as Error).message).toBe('down');
  });
});
