/**
 * The native check of base64 text (src/request/base64-sources.ts decodes it with Node's decoder and counts the
 * bytes) against the rules it stands for, written out here character by character: for every one-byte code
 * unit and wide ones, in every place (first, inside, last, around the 64 KiB slices it decodes in, around the
 * padding), `base64Problem` must accept exactly what the rules accept. The refusals' wording is the table test's
 * business (base64-sources.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { base64Problem } from '#src/request/base64-sources.ts';

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ALPHABETS = `${STANDARD}-_`;
const WHITE = /\s/;

/** The rules, one character at a time: what a vendor may decode. */
function acceptedByRules(data: string): boolean {
  if (data.startsWith('data:')) return false;
  let compact = '';
  for (const character of data) {
    if (WHITE.test(character)) continue;
    if (!ALPHABETS.includes(character) && character !== '=') return false;
    compact += character;
  }
  if (compact.length === 0) return false;
  const padding = compact.indexOf('=');
  if (padding !== -1 && !/^={1,2}$/.test(compact.slice(padding))) return false;
  const symbols = padding === -1 ? compact.length : padding;
  return symbols % 4 !== 1;
}

// A deterministic generator: the same cases on every run.
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function base64Of(length: number, next: () => number): string {
  return Array.from({ length }, () => STANDARD[Math.floor(next() * 64)]).join('');
}

const UNITS = [...Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)), '\u0100', '\u0144', '\u0141', '\uff21', '\u2028', '\ud83d', '😀'];

describe('base64Problem accepts exactly what the rules accept', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8])('every code unit at every place of a %i-character text', (length) => {
    const next = random(length + 1);
    const base = base64Of(length, next);
    for (const unit of UNITS) {
      for (let at = 0; at <= length; at++) {
        for (const text of [base.slice(0, at) + unit + base.slice(at), base.slice(0, at) + unit + base.slice(at + 1)]) {
          for (const padded of [text, `${text}=`, `${text}==`, `${text}===`]) {
            expect({ padded, accepted: base64Problem(padded) === undefined }).toEqual({ padded, accepted: acceptedByRules(padded) });
          }
        }
      }
    }
  });

  it('every code unit around the 64 KiB slices and the padding of a large text', () => {
    const next = random(7);
    const slice = 64 * 1024;
    for (const length of [slice - 4, slice - 1, slice, slice + 1, slice + 2, slice + 3, 2 * slice + 2]) {
      const base = base64Of(length, next);
      expect(base64Problem(base) === undefined).toBe(acceptedByRules(base));
      for (const padded of [`${base}=`, `${base}==`, `${base.slice(0, -1)}=`, `${base.slice(0, -2)}==`]) {
        expect(base64Problem(padded) === undefined).toBe(acceptedByRules(padded));
      }
      for (const at of [0, slice - 2, slice - 1, slice, slice + 1, length - 2, length - 1].filter((place) => place >= 0 && place < length)) {
        for (const unit of ['=', ' ', '\n', '.', '\u00ad', '\u00ff', '\u0144', '-', '_', '😀']) {
          for (const text of [base.slice(0, at) + unit + base.slice(at + 1), base.slice(0, at) + unit + base.slice(at)]) {
            const accepted = base64Problem(text) === undefined;
            if (accepted !== acceptedByRules(text)) expect({ length, at, unit, accepted }).toEqual({ length, at, unit, accepted: acceptedByRules(text) });
          }
        }
      }
    }
  });

  it('random texts of the alphabets, white space, padding and stray characters', () => {
    const next = random(42);
    const pool = `${ALPHABETS}${ALPHABETS}${ALPHABETS}= \n\r\t.,:;ń\u00e9😀`;
    for (let round = 0; round < 5000; round++) {
      const length = Math.floor(next() * 40);
      const text = Array.from({ length }, () => pool[Math.floor(next() * pool.length)]).join('');
      expect({ text, accepted: base64Problem(text) === undefined }).toEqual({ text, accepted: acceptedByRules(text) });
    }
  });

  it('a base64 text from a body that also holds wide characters (a two-byte JSON source) is accepted', () => {
    const data = Buffer.from('an image, of sorts').toString('base64');
    const parsed = JSON.parse(JSON.stringify({ caption: 'ünïcödé 😀', data })) as { data: string };
    expect(base64Problem(parsed.data)).toBeUndefined();
    expect(base64Problem(`${parsed.data.slice(0, 4)}\u0144${parsed.data.slice(5)}`)).toMatch(/^is not base64: it holds "ń"/);
  });
});
