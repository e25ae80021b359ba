/**
 * The charset of a JSON body. JSON exchanged between systems is UTF-8 (RFC 8259 §8.1), which is all
 * Anthropic's API documents (`content-type: application/json`); US-ASCII is a subset of it. express.json
 * decoded any `utf-*` charset it was told (a UTF-16 body was read, and a UTF-8 body labelled
 * `charset=utf-16` became a "not valid JSON" 400 that said nothing of the label), refused `us-ascii`, and
 * answered 415 for the rest. Now the label decides before the body is read: UTF-8 (also spelled `utf8`) or
 * US-ASCII is read as UTF-8, any other charset is a 415 naming it, whatever the bytes.
 */

const JSON_MEDIA_TYPE = 'application/json';
const READ_AS_UTF8: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);
// What nearly every client sends (the Anthropic SDKs, fetch with a JSON body), answered without a split.
const CANONICAL_JSON = 'application/json; charset=utf-8';
const AS_IS: JsonCharset = Object.freeze({ kind: 'as-is' });

/** What the charset of a `Content-Type` means for a JSON body. */
export type JsonCharset =
  /** Not a JSON media type, or no charset: the body parser decides as before. */
  | { kind: 'as-is' }
  /** A UTF-8-compatible label the body parser does not take as written (`us-ascii`, `utf8`): read as UTF-8. */
  | { kind: 'utf-8' }
  /** Any other charset: refused. */
  | { kind: 'refused'; charset: string };

/**
 * Reads the `charset` parameters of a JSON `Content-Type` header: any one that is not UTF-8-compatible
 * refuses the body, so a header naming two (`charset=utf-8; charset=utf-16`) is not read by whichever a
 * parser happens to take. Pure.
 */
export function jsonCharset(header: string | undefined): JsonCharset {
  if (header === undefined || header === JSON_MEDIA_TYPE || header === CANONICAL_JSON) return AS_IS;
  const [mediaType, ...parameters] = header.split(';');
  if (mediaType?.trim().toLowerCase() !== JSON_MEDIA_TYPE) return AS_IS;
  let answer: JsonCharset = AS_IS;
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals < 0 || parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter.slice(equals + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (!READ_AS_UTF8.has(charset)) return { kind: 'refused', charset };
    if (charset !== 'utf-8') answer = { kind: 'utf-8' };
  }
  return answer;
}

/** The body parser's own failure for a charset it does not decode (src/http/body-errors.ts renders it). */
export function unsupportedCharsetError(charset: string): Error {
  return Object.assign(new Error(`unsupported charset "${charset}"`), { status: 415, statusCode: 415, expose: true, type: 'charset.unsupported', charset });
}
