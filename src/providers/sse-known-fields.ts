/**
 * Byte-level matching of the SSE field names (`event`, `data`) and of the event names an Anthropic-format
 * stream uses, for the splitter's one-pass cut of LF-framed chunks (src/providers/sse-reader.ts). Bytes are
 * compared four at a time through a DataView over the chunk: a byte-by-byte loop over a Buffer costs some 25
 * instructions a byte in optimised code (every element load re-checks the view's length), and the names were
 * about 2,000 instructions of every streamed answer's 8 events (callgrind, bench/stream-instructions.ts).
 */

const LF = 0x0a;
const COLON = 0x3a;
const C = 0x63;
const D = 0x64;
const M = 0x6d;
const P = 0x70;
const E = 0x65;
const A = 0x61;
const T = 0x74;

/** The names an Anthropic-format stream uses: an event named by one of them gets the string here. */
export const KNOWN_NAMES = ['content_block_delta', 'content_block_start', 'content_block_stop', 'message_delta', 'message_start', 'message_stop', 'ping', 'error'];

/** A name as the little-endian 32-bit words that cover it: at 0, 4, 8, … and one more ending at its last byte. */
interface NameWords {
  length: number;
  offsets: Int32Array;
  words: Int32Array;
}

function wordsOf(name: string): NameWords {
  const bytes = Buffer.from(name, 'latin1');
  const offsets: number[] = [];
  for (let offset = 0; offset + 4 < bytes.length; offset += 4) offsets.push(offset);
  offsets.push(bytes.length - 4);
  return { length: bytes.length, offsets: Int32Array.from(offsets), words: Int32Array.from(offsets, (offset) => bytes.readInt32LE(offset)) };
}

const KNOWN_NAME_WORDS = KNOWN_NAMES.map(wordsOf);
const DATA_WORD = Buffer.from('data').readInt32LE(0);
const EVEN_WORD = Buffer.from('even').readInt32LE(0);

/** A view of a chunk's bytes for the word reads below. */
export function viewOf(bytes: Buffer): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The byte length of KNOWN_NAMES[index]. */
export function knownNameLength(index: number): number {
  return KNOWN_NAME_WORDS[index]!.length;
}

/** The index in KNOWN_NAMES of the name that `bytes` hold from `at` to an LF, or -1. */
export function knownNameAt(bytes: Buffer, view: DataView, at: number): number {
  let index: number;
  const first = bytes[at];
  // content_block_(delta|start|stop) differ at 14 ('d'), then at 16 ('a' for start); message_… at 8 and 10.
  if (first === C) index = bytes[at + 14] === D ? 0 : bytes[at + 16] === A ? 1 : 2;
  else if (first === M) index = bytes[at + 8] === D ? 3 : bytes[at + 10] === A ? 4 : 5;
  else if (first === P) index = 6;
  else if (first === E) index = 7;
  else return -1;
  const name = KNOWN_NAME_WORDS[index]!;
  // The LF after the name is in the chunk, so every word read lies in it.
  if (bytes[at + name.length] !== LF) return -1;
  const { offsets, words } = name;
  for (let word = 0; word < offsets.length; word += 1) if (view.getInt32(at + offsets[word]!, true) !== words[word]) return -1;
  return index;
}

/** Whether the line at `start`, which an LF ends, is the `data` field: the name, then a colon or the LF. */
export function isDataFieldStart(bytes: Buffer, view: DataView, start: number): boolean {
  const after = bytes[start + 4];
  return (after === COLON || after === LF) && view.getInt32(start, true) === DATA_WORD;
}

/** Whether the line at `start`, which an LF ends, is the `event` field: the name, then a colon or the LF. */
export function isEventFieldStart(bytes: Buffer, view: DataView, start: number): boolean {
  const after = bytes[start + 5];
  return (after === COLON || after === LF) && bytes[start + 4] === T && view.getInt32(start, true) === EVEN_WORD;
}
