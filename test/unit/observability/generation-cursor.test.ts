/** The opaque cursor of GET /generations: what it encodes, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { decodeGenerationCursor, encodeGenerationCursor } from '#src/observability/generation-cursor.ts';

const ID = `gen_${'b'.repeat(24)}`;

describe('generation cursor', () => {
  it('round-trips a position', () => {
    const cursor = { id: ID };
    expect(decodeGenerationCursor(encodeGenerationCursor(cursor))).toEqual(cursor);
    expect(encodeGenerationCursor(cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("reads an earlier version's cursor, which carried the record's time too", () => {
    expect(decodeGenerationCursor(Buffer.from(JSON.stringify({ t: 1_735_787_045_678, i: ID })).toString('base64url'))).toEqual({ id: ID });
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['JSON without fields', Buffer.from('{}').toString('base64url')],
    ['a foreign id', Buffer.from(JSON.stringify({ i: 'x' })).toString('base64url')],
    ['a non-integer time', Buffer.from(JSON.stringify({ t: 1.5, i: ID })).toString('base64url')],
  ])('refuses %s', (_label, text) => {
    expect(decodeGenerationCursor(text)).toBeUndefined();
  });
});
