import { describe, expect, it } from 'vitest';
import { isDataFieldStart, isEventFieldStart, KNOWN_NAMES, knownNameAt, knownNameLength, viewOf } from '#src/providers/sse-known-fields.ts';

/** The bytes of `text` at a non-zero offset of a larger buffer, as a pooled Buffer or a subarray holds them. */
function bytesOf(text: string): Buffer {
  const padded = Buffer.from(`xyz${text}`);
  return padded.subarray(3);
}

function nameAt(text: string, at = 0): number {
  const bytes = bytesOf(text);
  return knownNameAt(bytes, viewOf(bytes), at);
}

describe('knownNameAt', () => {
  it.each(KNOWN_NAMES.map((name, index) => [name, index]))('finds %s when an LF ends it', (name, index) => {
    expect(nameAt(`${name}\n`)).toBe(index);
    expect(nameAt(`event: ${name}\ndata: {}\n\n`, 7)).toBe(index);
    expect(knownNameLength(index as number)).toBe((name as string).length);
  });

  it.each(KNOWN_NAMES)('does not take %s cut short by the chunk end, or longer, or changed in any byte', (name) => {
    for (let length = 0; length <= name.length; length += 1) expect(nameAt(name.slice(0, length))).toBe(-1);
    expect(nameAt(`${name}x\n`)).toBe(-1);
    expect(nameAt(`${name}\r\n`)).toBe(-1);
    for (let index = 0; index < name.length; index += 1) {
      const changed = `${name.slice(0, index)}${name[index] === 'q' ? 'r' : 'q'}${name.slice(index + 1)}\n`;
      expect(nameAt(changed)).toBe(-1);
    }
  });

  it('does not take a name that is not one of them', () => {
    expect(nameAt('content_block_other\n')).toBe(-1);
    expect(nameAt('message\n')).toBe(-1);
    expect(nameAt('custom\n')).toBe(-1);
  });
});

describe('isDataFieldStart and isEventFieldStart', () => {
  const data = (text: string) => {
    const bytes = bytesOf(text);
    return isDataFieldStart(bytes, viewOf(bytes), 0);
  };
  const event = (text: string) => {
    const bytes = bytesOf(text);
    return isEventFieldStart(bytes, viewOf(bytes), 0);
  };

  it('reads the field name followed by a colon or an LF', () => {
    expect([data('data: {}\n'), data('data:{}\n'), data('data\n')]).toEqual([true, true, true]);
    expect([event('event: ping\n'), event('event:ping\n'), event('event\n')]).toEqual([true, true, true]);
  });

  it('refuses other names, longer names and names the chunk cuts', () => {
    expect([data('dat'), data('data'), data('datum: 1\n'), data('data_x: 1\n'), data('Data: 1\n')]).toEqual([false, false, false, false, false]);
    expect([event('even'), event('event'), event('evens: 1\n'), event('events: 1\n'), event('Event: 1\n')]).toEqual([false, false, false, false, false]);
  });
});
