import { describe, expect, it } from 'vitest';
import { jsonCharset } from '#src/http/json-charset.ts';

describe('jsonCharset', () => {
  it.each([
    [undefined, { kind: 'as-is' }],
    ['application/json', { kind: 'as-is' }],
    ['application/json; charset=utf-8', { kind: 'as-is' }],
    ['application/json;charset=utf-8', { kind: 'as-is' }],
    ['application/json; charset=UTF-8', { kind: 'as-is' }],
    ['Application/JSON ; Charset="UTF-8"', { kind: 'as-is' }],
    ['application/json ', { kind: 'as-is' }],
    ['application/json; profile=x', { kind: 'as-is' }],
    ['application/json; charset', { kind: 'as-is' }],
    ['text/plain; charset=utf-16', { kind: 'as-is' }],
    ['application/json; charset=utf8', { kind: 'utf-8' }],
    ['application/json; charset=us-ascii', { kind: 'utf-8' }],
    ['application/json;charset=ASCII', { kind: 'utf-8' }],
    ['application/json; charset=utf-16', { kind: 'refused', charset: 'utf-16' }],
    ['application/json; charset=UTF-16LE', { kind: 'refused', charset: 'utf-16le' }],
    ['application/json; x=1; charset=latin1', { kind: 'refused', charset: 'latin1' }],
    ['application/json; charset=', { kind: 'refused', charset: '' }],
    ['application/json; charset=utf-8; charset=utf-16', { kind: 'refused', charset: 'utf-16' }],
    ['application/json; charset=utf-16; charset=utf-8', { kind: 'refused', charset: 'utf-16' }],
    ['application/json; charset=utf-8; charset=us-ascii', { kind: 'utf-8' }],
  ])('%j: %j', (header, expected) => {
    expect(jsonCharset(header)).toEqual(expected);
  });
});
