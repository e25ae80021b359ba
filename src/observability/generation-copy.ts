/**
 * A batch of generation records as PostgreSQL's binary `COPY` file (header, one tuple per record, trailer),
 * loaded by PGlite and by PostgreSQL alike (store/database.ts). Binary rather than CSV because PGlite runs
 * PostgreSQL as WebAssembly on V8's baseline tier, where reading text is dear: splitting CSV lines and parsing
 * uuids, timestamps and floats (`strtod` in software 128-bit arithmetic) cost about half the instructions of a
 * record (callgrind, bench/record-instructions.ts); the binary receive functions copy fixed-size values. The
 * one npm encoder of this format (pg-copy-streams-binary) has no uuid type and allocates a buffer per field,
 * so the seven types of the `generations` table are written here, the columns in the table's order (checked
 * against the schema when the module loads).
 */
import { getTableColumns } from '#src/store/drizzle.ts';
import { generations } from '#src/store/schema.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

// PGCOPY\n\377\r\n\0, then 32-bit flags (no OIDs) and header extension length: 19 bytes (PostgreSQL, COPY).
const HEADER = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0];
// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01 UTC), the origin of a binary timestamp.
const POSTGRES_EPOCH_MS = 946_684_800_000;
const TWO_TO_32 = 2 ** 32;
// A uuid's text: 32 hex digits (16 pairs) with dashes at 8, 13, 18 and 23.
const UUID_DASHES = [8, 13, 18, 23];
const UUID_DIGIT_PAIRS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit += 1) {
  HEX['0123456789abcdef'.charCodeAt(digit)] = digit;
  HEX['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}

/** The batch being written: a buffer that grows by doubling, with one method per column type. */
class CopyBuffer {
  bytes: Buffer;
  view: DataView;
  length = 0;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reserve(size: number): void {
    if (this.length + size <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + size));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }

  int16(value: number): void {
    this.reserve(2);
    this.view.setInt16(this.length, value);
    this.length += 2;
  }

  /** A field's 32-bit length word, or -1 for NULL; true when a value follows. */
  private field(value: unknown, size: number): boolean {
    this.reserve(4 + size);
    const present = value !== null && value !== undefined;
    this.view.setInt32(this.length, present ? size : -1);
    this.length += 4;
    return present;
  }

  /** UTF-8 text, written in place (`Buffer#write`: about half the cost of TextEncoder's `encodeInto`). */
  text(value: string | null | undefined): void {
    if (value === null || value === undefined) return void this.field(value, 0);
    const text = String(value);
    // Room for the worst case, 3 bytes per UTF-16 unit, so the text is never cut.
    this.reserve(4 + text.length * 3);
    const written = this.bytes.write(text, this.length + 4);
    this.view.setInt32(this.length, written);
    this.length += 4 + written;
  }

  /**
   * A text from a small set (a model, a provider, a status, a key's hash): its UTF-8 bytes are encoded once and
   * copied after, which skips `Buffer#write`'s per-call cost (bench/copy-encode-instructions.ts).
   */
  label(value: string | null | undefined): void {
    // A requested model is the client's text: a long one is written as any text, so the cache stays small.
    if (typeof value !== 'string' || value.length > LABEL_LIMIT) return this.text(value);
    let encoded = labelCache.get(value);
    if (encoded === undefined) {
      // Its own small ArrayBuffer: a pooled Buffer's slice would keep its 8 kB pool alive while cached.
      encoded = new Uint8Array(Buffer.from(value, 'utf8'));
      if (labelCache.size >= 1024) labelCache.clear();
      labelCache.set(value, encoded);
    }
    const size = encoded.length;
    this.reserve(4 + size);
    const bytes = this.bytes;
    this.view.setInt32(this.length, size);
    const start = this.length + 4;
    // A loop copies a few bytes for less than `TypedArray#set`'s call (about 160 instructions); a long label
    // (a key's 64-character hash) is cheaper by the call.
    if (size > 16) bytes.set(encoded, start);
    else for (let index = 0; index < size; index += 1) bytes[start + index] = encoded[index]!;
    this.length = start + size;
  }

  json(value: unknown): void {
    this.text(value === null || value === undefined ? value : JSON.stringify(value));
  }

  boolean(value: boolean | null | undefined): void {
    if (value !== null && value !== undefined && typeof value !== 'boolean') throw invalid('boolean', value);
    if (this.field(value, 1)) this.bytes[this.length++] = value ? 1 : 0;
  }

  integer(value: number | null | undefined): void {
    // `| 0` keeps exactly the integers of int32's range (-0 as 0, which setInt32 writes alike); anything else,
    // a fraction, NaN, a larger number or not a number, differs from it.
    if (value !== null && value !== undefined && (value | 0) !== value) throw invalid('integer', value);
    if (!this.field(value, 4)) return;
    this.view.setInt32(this.length, value as number);
    this.length += 4;
  }

  float(value: number | null | undefined): void {
    if (value !== null && value !== undefined && typeof value !== 'number') throw invalid('double precision', value);
    if (!this.field(value, 8)) return;
    this.view.setFloat64(this.length, value as number);
    this.length += 8;
  }

  timestamp(value: Date | null | undefined): void {
    const time = value instanceof Date ? value.getTime() : Number.NaN;
    if (value !== null && value !== undefined && !Number.isFinite(time)) throw invalid('timestamp', value);
    if (!this.field(value, 8)) return;
    // Whole milliseconds times 1000 stay below 2^53: exact as a double, split into two 32-bit words.
    const micros = (time - POSTGRES_EPOCH_MS) * 1000;
    const high = Math.floor(micros / TWO_TO_32);
    this.view.setInt32(this.length, high);
    this.view.setUint32(this.length + 4, micros - high * TWO_TO_32);
    this.length += 8;
  }

  uuid(value: string | null | undefined): void {
    if (!this.field(value, 16)) return;
    this.bytes.set(uuidBytes(value as string), this.length);
    this.length += 16;
  }
}

// The encoded labels, bounded as the uuid cache below is (a batch holds few distinct models and providers), and
// each at most LABEL_LIMIT UTF-16 units: at most about 1024 × 512 bytes held.
const labelCache = new Map<string, Uint8Array>();
const LABEL_LIMIT = 128;

const invalid = (type: string, value: unknown) => new TypeError(`not a ${type} for a binary COPY: ${String(value)}`);

// A batch holds few distinct accounts and workspaces: their uuids are parsed once.
const uuidCache = new Map<string, Uint8Array>();
function uuidBytes(value: string): Uint8Array {
  const cached = uuidCache.get(value);
  if (cached) return cached;
  if (typeof value !== 'string' || value.length !== 36) throw invalid('uuid', value);
  for (const dash of UUID_DASHES) if (value.charCodeAt(dash) !== 0x2d) throw invalid('uuid', value);
  const bytes = new Uint8Array(16);
  UUID_DIGIT_PAIRS.forEach((position, index) => {
    const high = HEX[value.charCodeAt(position)] ?? -1;
    const low = HEX[value.charCodeAt(position + 1)] ?? -1;
    if (high < 0 || low < 0) throw invalid('uuid', value);
    bytes[index] = (high << 4) | low;
  });
  if (uuidCache.size >= 1024) uuidCache.clear();
  uuidCache.set(value, bytes);
  return bytes;
}

// Each value is written by its column's type; a value that type's text input would also refuse (a fraction
// for an integer, a text for a uuid) throws, so the batch falls back to the INSERT, which names the error.
// The fields are read by name, in the table's order (checked against the schema below): one property access
// each instead of a keyed load that would see 35 different names.
const WRITTEN_COLUMNS: readonly (readonly [keyof GenerationRecord, string])[] = [
  ['id', 'text'], ['accountId', 'uuid'], ['workspaceId', 'uuid'], ['keyHash', 'text'], ['createdAt', 'timestamp with time zone'],
  ['requestedModel', 'text'], ['model', 'text'], ['responseModel', 'text'], ['provider', 'text'], ['providerName', 'text'], ['isByok', 'boolean'], ['stream', 'boolean'],
  ['status', 'text'], ['httpStatus', 'integer'], ['stopReason', 'text'], ['errorType', 'text'], ['errorMessage', 'text'],
  ['inputTokens', 'integer'], ['outputTokens', 'integer'], ['cacheReadTokens', 'integer'], ['cacheWriteTokens', 'integer'], ['reasoningTokens', 'integer'],
  ['usageEstimated', 'boolean'], ['cost', 'double precision'], ['timeToFirstByteMs', 'integer'], ['totalMs', 'integer'], ['sessionId', 'text'], ['userId', 'text'],
  ['trace', 'json'], ['attempts', 'json'], ['toolSteps', 'json'], ['moderation', 'json'], ['prompt', 'json'], ['completion', 'json'], ['contentExpiresAt', 'timestamp with time zone'],
];

function writeRecord(out: CopyBuffer, record: GenerationRecord): void {
  out.int16(WRITTEN_COLUMNS.length);
  out.text(record.id);
  out.uuid(record.accountId);
  out.uuid(record.workspaceId);
  out.label(record.keyHash);
  out.timestamp(record.createdAt);
  out.label(record.requestedModel);
  out.label(record.model);
  out.label(record.responseModel);
  out.label(record.provider);
  out.label(record.providerName);
  out.boolean(record.isByok);
  out.boolean(record.stream);
  out.label(record.status);
  out.integer(record.httpStatus);
  out.label(record.stopReason);
  out.label(record.errorType);
  out.text(record.errorMessage);
  out.integer(record.inputTokens);
  out.integer(record.outputTokens);
  out.integer(record.cacheReadTokens);
  out.integer(record.cacheWriteTokens);
  out.integer(record.reasoningTokens);
  out.boolean(record.usageEstimated);
  out.float(record.cost);
  out.integer(record.timeToFirstByteMs);
  out.integer(record.totalMs);
  out.text(record.sessionId);
  out.text(record.userId);
  out.json(record.trace);
  out.json(record.attempts);
  out.json(record.toolSteps);
  out.json(record.moderation);
  out.json(record.prompt);
  out.json(record.completion);
  out.timestamp(record.contentExpiresAt);
}

const SCHEMA_COLUMNS = Object.entries(getTableColumns(generations)).map(([field, column]) => [field, column.getSQLType(), column.name] as const);
if (JSON.stringify(SCHEMA_COLUMNS.map(([field, type]) => [field, type])) !== JSON.stringify(WRITTEN_COLUMNS)) {
  throw new Error('generation-copy.ts: the binary COPY writes other columns than the generations table has; update writeRecord');
}

/** The `generations` columns in the order of the binary file's fields. */
export const COPY_COLUMN_NAMES: readonly string[] = SCHEMA_COLUMNS.map(([, , name]) => name);

// A batch of 500 records is about 200 kB: a new buffer per batch was a fresh allocation above glibc's mmap
// threshold (pages mapped, faulted in and unmapped each time) grown twice by copying from 64 kB. The buffer of
// the last batch is kept for the next one instead, up to this size (a batch carrying prompts may be far larger).
const KEPT_BUFFER_LIMIT = 1 << 20;
let spare: Buffer | undefined;

/** Writes the batch's file into `bytes` (or a larger buffer when it does not fit); returns the buffer used. */
function writeCopyFile(records: readonly GenerationRecord[], bytes: Buffer): { file: Uint8Array; bytes: Buffer } {
  const buffer = new CopyBuffer(bytes);
  buffer.bytes.set(HEADER);
  buffer.length = HEADER.length;
  for (const record of records) writeRecord(buffer, record);
  buffer.int16(-1);
  return { file: buffer.bytes.subarray(0, buffer.length), bytes: buffer.bytes };
}

/**
 * Hands `load` the batch's binary `COPY` file, written into the buffer the last batch used when no other batch
 * holds it. The buffer is kept for the next batch only once `load` has resolved (the database has read all of
 * it); after a failure it is dropped, as a write of it may still be pending on a connection being torn down.
 * Throws, without calling `load`, on a value a column cannot hold.
 */
export async function withGenerationsCopyFile(records: readonly GenerationRecord[], load: (file: Uint8Array) => Promise<void>): Promise<void> {
  const taken = spare ?? Buffer.allocUnsafe(1 << 16);
  spare = undefined;
  const { file, bytes } = writeCopyFile(records, taken);
  await load(file);
  if (spare === undefined && bytes.length <= KEPT_BUFFER_LIMIT) spare = bytes;
}
