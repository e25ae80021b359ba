/**
 * The opaque cursor of `GET /generations`: the id of the last record of a page, in base64url JSON. Pages are
 * ordered by id descending, which is by `created_at` then id (an id begins with its record's time), a total
 * order, so a cursor never skips or repeats a record that was already stored when the first page was read.
 */

/** Where the next page starts (exclusive). */
export interface GenerationCursor {
  id: string;
}

/** Encodes the position of a record. */
export function encodeGenerationCursor(cursor: GenerationCursor): string {
  return Buffer.from(JSON.stringify({ i: cursor.id })).toString('base64url');
}

/**
 * Decodes a cursor; undefined when it is not one this gateway made. A cursor of an earlier version also
 * carried the record's time (`t`), which the id holds: it is still read.
 */
export function decodeGenerationCursor(text: string): GenerationCursor | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    if (parsed.t !== undefined && (typeof parsed.t !== 'number' || !Number.isSafeInteger(parsed.t))) return undefined;
    if (typeof parsed.i !== 'string' || !/^gen_[A-Za-z0-9_-]{24}$/.test(parsed.i)) return undefined;
    return { id: parsed.i };
  } catch {
    return undefined;
  }
}
