/**
 * A batch of generation records as PostgreSQL's binary `COPY` file (header, one tuple per record, trailer),
 * for the embedded PGlite. Binary rather than CSV because PGlite runs PostgreSQL as WebAssembly on V8's
 * baseline tier, where reading text is dear: splitting CSV lines and parsing uuids, timestamps and floats
 * (`strtod` in software 128-bit arithmetic) cost about half the instructions of a record (callgrind,
 * bench/record-instructions.ts); the binary receive functions copy fixed-size values. The one npm encoder of
 * this format has no uuid type and allocates a buffer per field, so the few types of the `generations` table
 * are written here, each chosen once from the schema.
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

/** The batch being written: a buffer that grows by doubling. */
class CopyBuffer {
  bytes = new Uint8Array(1 << 16);
  view = new DataView(this.bytes.buffer);
  length = 0;
  private readonly encoder = new TextEncoder();

  reserve(size: number): void {
    if (this.length + size <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + size));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  /** A field's 32-bit length word, then its UTF-8 text. */
  text(value: string): void {
    this.reserve(4 + value.length * 3);
    const { written } = this.encoder.encodeInto(value, this.bytes.subarray(this.length + 4));
    this.view.setInt32(this.length, written);
    this.length += 4 + written;
  }
}

type FieldWriter = (buffer: CopyBuffer, value: unknown) => void;

const invalid = (type: string, value: unknown) => new TypeError(`not a ${type} for a binary COPY: ${String(value)}`);
const fixed = (buffer: CopyBuffer, size: number) => {
  buffer.reserve(4 + size);
  buffer.view.setInt32(buffer.length, size);
  buffer.length += 4;
};

// Each writer refuses a value its column's text input would also refuse (a fraction for an integer, a text
// for a uuid), so the batch falls back to the INSERT, which names the error, instead of storing something else.
const WRITERS: Record<string, FieldWriter> = {
  text: (buffer, value) => buffer.text(String(value)),
  json: (buffer, value) => buffer.text(JSON.stringify(value)),
  boolean: (buffer, value) => {
    if (typeof value !== 'boolean') throw invalid('boolean', value);
    fixed(buffer, 1);
    buffer.bytes[buffer.length++] = value ? 1 : 0;
  },
  integer: (buffer, value) => {
    if (!Number.isInteger(value) || (value as number) < -(2 ** 31) || (value as number) >= 2 ** 31) throw invalid('integer', value);
    fixed(buffer, 4);
    buffer.view.setInt32(buffer.length, value as number);
    buffer.length += 4;
  },
  'double precision': (buffer, value) => {
    if (typeof value !== 'number') throw invalid('double precision', value);
    fixed(buffer, 8);
    buffer.view.setFloat64(buffer.length, value);
    buffer.length += 8;
  },
  'timestamp with time zone': (buffer, value) => {
    const time = value instanceof Date ? value.getTime() : Number.NaN;
    if (!Number.isFinite(time)) throw invalid('timestamp', value);
    // Whole milliseconds times 1000 stay below 2^53: exact as a double, split into two 32-bit words.
    const micros = (time - POSTGRES_EPOCH_MS) * 1000;
    const high = Math.floor(micros / TWO_TO_32);
    fixed(buffer, 8);
    buffer.view.setInt32(buffer.length, high);
    buffer.view.setUint32(buffer.length + 4, micros - high * TWO_TO_32);
    buffer.length += 8;
  },
  uuid: (buffer, value) => {
    if (typeof value !== 'string' || value.length !== 36) throw invalid('uuid', value);
    for (const dash of UUID_DASHES) if (value.charCodeAt(dash) !== 0x2d) throw invalid('uuid', value);
    fixed(buffer, 16);
    for (const position of UUID_DIGIT_PAIRS) {
      const high = HEX[value.charCodeAt(position)] ?? -1;
      const low = HEX[value.charCodeAt(position + 1)] ?? -1;
      if (high < 0 || low < 0) throw invalid('uuid', value);
      buffer.bytes[buffer.length++] = (high << 4) | low;
    }
  },
};

const COLUMNS = Object.entries(getTableColumns(generations)).map(([field, column]) => {
  const writer = WRITERS[column.getSQLType()];
  if (!writer) throw new Error(`generations.${column.name}: no binary COPY writer for ${column.getSQLType()}`);
  return { field: field as keyof GenerationRecord, name: column.name, writer };
});

/** The `generations` columns in the order of the binary file's fields. */
export const COPY_COLUMN_NAMES: readonly string[] = COLUMNS.map((column) => column.name);

/** The batch as a binary `COPY` file; throws on a value its column cannot hold. */
export function generationsCopyFile(records: readonly GenerationRecord[]): Uint8Array {
  const buffer = new CopyBuffer();
  buffer.bytes.set(HEADER);
  buffer.length = HEADER.length;
  for (const record of records) {
    buffer.reserve(2);
    buffer.view.setInt16(buffer.length, COLUMNS.length);
    buffer.length += 2;
    for (const { field, writer } of COLUMNS) {
      const value = record[field];
      if (value === null || value === undefined) {
        buffer.reserve(4);
        buffer.view.setInt32(buffer.length, -1);
        buffer.length += 4;
      } else writer(buffer, value);
    }
  }
  buffer.reserve(2);
  buffer.view.setInt16(buffer.length, -1);
  buffer.length += 2;
  return buffer.bytes.subarray(0, buffer.length);
}
