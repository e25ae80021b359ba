import { describe, expect, it } from 'vitest';
import { PassedPieces, inGroups, pieceDigest, piecesToScreen, splitText } from '#src/plugins/moderation/moderation-pieces.ts';

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
