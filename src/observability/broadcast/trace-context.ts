/**
 * Where a generation sits in its caller's trace. `trace_id` and `parent_span_id` from the request's `trace`
 * object, or a W3C `traceparent` header, join the caller's trace (a header of the trace `trace_id` names gives
 * the parent when `parent_span_id` does not); without either the generation starts its own. Ids that are not W3C hex are hashed into one (so requests sharing a `trace_id` share a trace). The
 * gateway's own ids are cut from the generation id's 18 random bytes (no hashing per span), so every
 * destination and every retry of a delivery names a generation's spans the same way. The bytes are decoded
 * once per generation, when it is offered, and travel in its trace context to the span builders.
 */
import { createHash } from 'node:crypto';
import { parseTraceParent } from '@opentelemetry/core';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

/** The trace keys with special handling (interface item 10); every other key is custom metadata. */
export const KNOWN_TRACE_KEYS = ['trace_id', 'trace_name', 'span_name', 'generation_name', 'parent_span_id'] as const;

/** The trace context of one generation. */
export interface TraceContext {
  /** 32 lowercase hex. */
  traceId: string;
  /** The caller's span the generation hangs under (16 hex), or null. */
  parentSpanId: string | null;
  /** The `trace_id` as the caller wrote it (Langfuse takes any string), else the hex trace id. */
  externalTraceId: string;
  /** The `parent_span_id` as the caller wrote it. */
  externalParentId: string | null;
  traceName: string | undefined;
  spanName: string | undefined;
  generationName: string | undefined;
  /** The custom keys. */
  metadata: Record<string, unknown>;
  /** What the gateway's own span ids of this generation are cut from (`ownSpanId`). */
  own: OwnIds;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

function validTraceId(value: string): boolean {
  return TRACE_ID.test(value) && !/^0+$/.test(value);
}

function validSpanId(value: string): boolean {
  return SPAN_ID.test(value) && !/^0+$/.test(value);
}

function hex(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * The roles of the gateway's own spans: an attempt's role is its 0-based index plus `attempt`, a tool-loop
 * step's its 1-based number plus `step` (a loop has at most a few dozen of either, so the two never meet).
 * The moderation screening (one per request) takes 0, which neither range reaches (attempts start at 4,
 * steps at 129) and which only a role of 256 (a 252nd attempt, a 128th step) would wrap around to.
 */
export const SPAN_ROLE = { screening: 0, trace: 1, span: 2, generation: 3, attempt: 4, step: 128 } as const;

function idBytes(generationId: string): Buffer {
  const bytes = Buffer.from(generationId.slice(generationId.indexOf('_') + 1), 'base64url');
  return bytes.length >= 16 ? bytes : createHash('sha256').update(generationId).digest();
}

// The character code of each hex digit, by nibble.
const HEX_CODE = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
// Each base64url character's six bits by character code (below 128), -1 for any other character.
const BASE64URL_BITS = new Int8Array(128).fill(-1);
for (const [bits, character] of Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_').entries()) BASE64URL_BITS[character.charCodeAt(0)] = bits;
// What the gateway's ids carry after `gen_`: 24 base64url characters (generation-id.ts), 18 bytes.
const ID_CHARACTERS = 24;
const ID_BYTES = 18;

/** The ids of one generation: its own trace id and the bytes its span ids are cut from. */
export interface OwnIds {
  /** 32 hex: the first sixteen bytes. */
  traceId: string;
  /** The last eight bytes: a span id is their hex, the first one mixed with the span's role. */
  spanBytes: readonly number[];
}

// The bytes of the id being decoded: its own small buffer (not a slice of node's pool), reused.
const decoded = Buffer.allocUnsafeSlow(ID_BYTES);

function bitsAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (BASE64URL_BITS[code] as number) : -1;
}

/**
 * Decodes the 24 base64url characters of a gateway-made id into `decoded`, in JavaScript: `Buffer.from(…,
 * 'base64url')` costs about 1.1 k instructions more a generation in node's bindings and simdutf's decoder
 * (bench/JOURNAL.md, 2026-11-28 18:10). False for any other id, which takes that path instead.
 */
function decodeIdCharacters(generationId: string): boolean {
  const from = generationId.indexOf('_') + 1;
  if (from === 0 || generationId.length - from !== ID_CHARACTERS) return false;
  for (let at = from, out = 0; out < ID_BYTES; at += 4, out += 3) {
    const first = bitsAt(generationId, at);
    const second = bitsAt(generationId, at + 1);
    const third = bitsAt(generationId, at + 2);
    const fourth = bitsAt(generationId, at + 3);
    if ((first | second | third | fourth) < 0) return false;
    const bits = (first << 18) | (second << 12) | (third << 6) | fourth;
    decoded[out] = bits >> 16;
    decoded[out + 1] = (bits >> 8) & 0xff;
    decoded[out + 2] = bits & 0xff;
  }
  return true;
}

function decodeOwnIds(generationId: string): OwnIds {
  const bytes = decodeIdCharacters(generationId) ? decoded : idBytes(generationId);
  const at = bytes.length - 8;
  // Hex from the Buffer itself, not a slice of a longer hex: a flat string, which the exporter's
  // serialiser reads (twice, per character) at half the cost of a slice or a concatenation.
  const spanBytes = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!, bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!];
  return { traceId: bytes.toString('hex', 0, 16), spanBytes };
}

// The character codes of the span id being built.
const spanCodes: number[] = Array.from({ length: 16 }, () => 0);

/**
 * A span id of the gateway's own: the generation id's last eight random bytes in hex, the first byte mixed
 * with the role. Built as one flat string (`String.fromCharCode`) rather than concatenated, for the same
 * reason as the trace id's hex; its sixteen codes are passed one by one, which costs about 140 instructions
 * less than spreading the array (and 450 less than a Buffer's hex; bench/JOURNAL.md, 2026-11-28 18:10).
 */
export function ownSpanId(ids: OwnIds, role: number): string {
  const codes = spanCodes;
  for (let index = 0; index < 8; index += 1) {
    // A role past 255 wraps, as a byte does.
    const byte = index === 0 ? (ids.spanBytes[0]! ^ role) & 0xff : ids.spanBytes[index]!;
    codes[2 * index] = HEX_CODE[byte >> 4]!;
    codes[2 * index + 1] = HEX_CODE[byte & 15]!;
  }
  return String.fromCharCode(codes[0]!, codes[1]!, codes[2]!, codes[3]!, codes[4]!, codes[5]!, codes[6]!, codes[7]!, codes[8]!, codes[9]!, codes[10]!, codes[11]!, codes[12]!, codes[13]!, codes[14]!, codes[15]!);
}

/** A span id of the gateway's own, from the generation id alone (see `ownSpanId`). */
export function spanIdFor(generationId: string, role: number): string {
  return ownSpanId(decodeOwnIds(generationId), role);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The context of a generation without trace keys: a trace of its own, which most requests are. */
function ownTraceContext(own: OwnIds): TraceContext {
  return { traceId: own.traceId, parentSpanId: null, externalTraceId: own.traceId, externalParentId: null, traceName: undefined, spanName: undefined, generationName: undefined, metadata: {}, own };
}

/** Resolves the trace context of a record. */
export function resolveTraceContext(record: Pick<GenerationRecord, 'id' | 'trace'>): TraceContext {
  if (record.trace === null || record.trace === undefined) return ownTraceContext(decodeOwnIds(record.id));
  const trace = record.trace as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(trace)) {
    if (!(KNOWN_TRACE_KEYS as readonly string[]).includes(key) && key !== 'traceparent') metadata[key] = value;
  }
  const bodyTraceId = text(trace.trace_id);
  const bodyParent = text(trace.parent_span_id);
  const header = text(trace.traceparent) ? parseTraceParent(String(trace.traceparent)) : null;
  const own = decodeOwnIds(record.id);
  let traceId: string;
  let parentSpanId: string | null = null;
  if (bodyTraceId) {
    const lower = bodyTraceId.toLowerCase();
    traceId = validTraceId(lower) ? lower : hex(bodyTraceId, 32);
    // A header of this very trace names the caller's current span in it (an instrumented client sends one
    // with every request): the generation hangs under it, unless `parent_span_id` says otherwise below.
    if (header?.traceId === traceId) parentSpanId = header.spanId;
  } else if (header && validTraceId(header.traceId)) {
    traceId = header.traceId;
    parentSpanId = header.spanId;
  } else {
    traceId = own.traceId;
  }
  if (bodyParent && (bodyTraceId || header)) {
    const lower = bodyParent.toLowerCase();
    parentSpanId = validSpanId(lower) ? lower : parentSpanId;
  }
  return {
    traceId,
    parentSpanId,
    externalTraceId: bodyTraceId ?? traceId,
    externalParentId: bodyParent ?? parentSpanId,
    traceName: text(trace.trace_name),
    spanName: text(trace.span_name),
    generationName: text(trace.generation_name),
    metadata,
    own,
  };
}

/** Whether a trace is sent to a destination sampling at `rate`: decided by the trace id, so a trace is sent whole. */
export function isSampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return Number.parseInt(traceId.slice(-8), 16) / 0x1_0000_0000 < rate;
}
