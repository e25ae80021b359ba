/**
 * The opaque cursor of `GET /generations`: the position (creation time, id) of the last record of a page, in
 * base64url JSON. Pages are ordered by (created_at, id) descending, a total order, so a cursor never skips or
 * repeats a record that was already stored when the first page was read.
 */

/** Where the next page starts (exclusive). */
export interface GenerationCursor {
  createdAt: Date;
  id: string;
}

/** Encodes the position of a record. */
export function encodeGenerationCursor(cursor: GenerationCursor): string {
  return Buffer.from(JSON.stringify({ t: cursor.createdAt.getTime(), i: cursor.id })).toString('base64url');
}

/** Decodes a cursor; undefined when it is not one this gateway made. */
export function decodeGenerationCursor(text: string): GenerationCursor | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    if (typeof parsed.t !== 'number' || !Number.isSafeInteger(parsed.t) || typeof parsed.i !== 'string' || !/^gen_[A-Za-z0-9_-]{24}$/.test(parsed.i)) return undefined;
    return { createdAt: new Date(parsed.t), id: parsed.i };
  } catch {
    return undefined;
  }
}
