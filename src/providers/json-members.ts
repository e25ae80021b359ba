/**
 * A small reader of one JSON object's top-level members at the byte level, for splicing values into an
 * upstream's event text without parsing and re-serialising all of it (src/messages/spliced-amendments.ts).
 * It reads text that `JSON.parse` has accepted already: it finds where members lie, skipping nested values
 * string-aware, and does not validate. UTF-8 needs no decoding here: every byte of a multi-byte character is
 * ≥ 0x80, so none is taken for a quote, a brace or a backslash.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index from `at` that is not JSON whitespace. */
export function skipSpace(bytes: Uint8Array, at: number, end: number): number {
  let index = at;
  while (index < end && isSpace(bytes[index])) index += 1;
  return index;
}

// The index after the string whose opening quote is at `at`, or -1 when it does not close before `end`.
function skipString(bytes: Uint8Array, at: number, end: number): number {
  let index = at + 1;
  while (index < end) {
    const byte = bytes[index];
    if (byte === QUOTE) return index + 1;
    index += byte === BACKSLASH ? 2 : 1;
  }
  return -1;
}

// The index after the value that starts at `at`, or -1 when it does not end before `end`.
function skipValue(bytes: Uint8Array, at: number, end: number): number {
  const first = bytes[at];
  if (first === QUOTE) return skipString(bytes, at, end);
  let index = at;
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    while (index < end) {
      const byte = bytes[index];
      if (byte === QUOTE) {
        index = skipString(bytes, index, end);
        if (index === -1) return -1;
        continue;
      }
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
      index += 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the byte that ends it.
  while (index < end) {
    const byte = bytes[index];
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || isSpace(byte)) break;
    index += 1;
  }
  return index === at ? -1 : index;
}

// Which of `keys` the key text bytes[from, to) (quotes excluded) is: its index, -1 for none, -2 when the key is
// written with an escape (it might read as one of them, so its members are not located by bytes).
function keyIndex(bytes: Uint8Array, from: number, to: number, keys: readonly string[]): number {
  for (let index = from; index < to; index += 1) if (bytes[index] === BACKSLASH) return -2;
  const length = to - from;
  for (let key = 0; key < keys.length; key += 1) {
    const name = keys[key]!;
    if (name.length !== length) continue;
    let same = true;
    for (let offset = 0; offset < length && same; offset += 1) same = bytes[from + offset] === name.charCodeAt(offset);
    if (same) return key;
  }
  return -1;
}

/**
 * Reads the object whose `{` is at `open` (in text `JSON.parse` accepted, up to `end`): for each of `keys`
 * (ASCII names), where its value lies, `found[2k]` to `found[2k + 1]` (both -1 when the key is absent).
 * With `nestedKeys`, the value of `keys[0]` must be an object and is read the same way in the same pass, into
 * `nestedFound`, where a skip of it and a second read would cross its bytes twice. Returns the index of the
 * object's closing brace, or -1 when the bytes cannot be located safely: one of the keys appears twice
 * (`JSON.parse` keeps the last value at the first's place), a key at a level read is written with an escape,
 * or the text is not an object.
 */
export function locateMembers(
  bytes: Uint8Array,
  open: number,
  end: number,
  keys: readonly string[],
  found: number[],
  nestedKeys?: readonly string[],
  nestedFound?: number[],
): number {
  for (let index = 0; index < keys.length * 2; index += 1) found[index] = -1;
  if (bytes[open] !== OPEN_BRACE) return -1;
  let index = skipSpace(bytes, open + 1, end);
  if (bytes[index] === CLOSE_BRACE) return index;
  for (;;) {
    if (bytes[index] !== QUOTE) return -1;
    const keyEnd = skipString(bytes, index, end);
    if (keyEnd === -1) return -1;
    const key = keyIndex(bytes, index + 1, keyEnd - 1, keys);
    if (key === -2) return -1;
    index = skipSpace(bytes, keyEnd, end);
    if (bytes[index] !== COLON) return -1;
    const valueStart = skipSpace(bytes, index + 1, end);
    let valueEnd: number;
    if (key === 0 && nestedKeys !== undefined) {
      if (found[0] !== -1) return -1;
      const close = locateMembers(bytes, valueStart, end, nestedKeys, nestedFound!);
      valueEnd = close === -1 ? -1 : close + 1;
    } else valueEnd = skipValue(bytes, valueStart, end);
    if (valueEnd === -1) return -1;
    if (key >= 0) {
      if (found[2 * key] !== -1) return -1;
      found[2 * key] = valueStart;
      found[2 * key + 1] = valueEnd;
    }
    index = skipSpace(bytes, valueEnd, end);
    if (bytes[index] === COMMA) {
      index = skipSpace(bytes, index + 1, end);
      continue;
    }
    return bytes[index] === CLOSE_BRACE ? index : -1;
  }
}
