/**
 * Where a generation sits in its caller's trace. `trace_id` and `parent_span_id` from the request's `trace`
 * object, or a W3C `traceparent` header, join the caller's trace; without either the generation starts its
 * own. Ids that are not W3C hex are hashed into one (so requests sharing a `trace_id` share a trace). The
 * gateway's own ids are cut from the generation id's 18 random bytes (no hashing per span), so every
 * destination and every retry of a delivery names a generation's spans the same way.
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

// Two hex digits per byte value, for the first byte of a span id.
const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The hex ids of one generation: its own trace id and what its span ids are cut from. */
interface OwnIds {
  generationId: string;
  traceId: string;
  /** The last eight bytes' first one, which a span id mixes with its role. */
  spanByte: number;
  /** The hex of the last seven bytes, every span id's tail. */
  spanTail: string;
}

// The last generation's ids: a generation's trace id and span ids are asked for one after another (the trace
// context when it is offered, the spans of each destination when they are built), and decoding its id once
// for all of them costs a fifth of what decoding it for each did (bench/otlp-instructions.ts).
let last: OwnIds | undefined;

function ownIds(generationId: string): OwnIds {
  if (last?.generationId === generationId) return last;
  const hex = idBytes(generationId).toString('hex');
  const span = hex.length - 16;
  last = { generationId, traceId: hex.slice(0, 32), spanByte: Number.parseInt(hex.slice(span, span + 2), 16), spanTail: hex.slice(span + 2) };
  return last;
}

/** A span id of the gateway's own: the generation id's last eight random bytes, its first byte mixed with the role. */
export function spanIdFor(generationId: string, role: number): string {
  const ids = ownIds(generationId);
  // A role past 255 wraps, as a byte does.
  return `${HEX_BYTE[(ids.spanByte ^ role) & 0xff]}${ids.spanTail}`;
}

function ownTraceId(generationId: string): string {
  return ownIds(generationId).traceId;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Resolves the trace context of a record. */
export function resolveTraceContext(record: Pick<GenerationRecord, 'id' | 'trace'>): TraceContext {
  const trace = (record.trace ?? {}) as Record<string, unknown>;
  const metadata: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(trace)) {
    if (!(KNOWN_TRACE_KEYS as readonly string[]).includes(key) && key !== 'traceparent') metadata[key] = value;
  }
  const bodyTraceId = text(trace.trace_id);
  const bodyParent = text(trace.parent_span_id);
  const header = text(trace.traceparent) ? parseTraceParent(String(trace.traceparent)) : null;
  let traceId: string;
  let parentSpanId: string | null = null;
  if (bodyTraceId) {
    const lower = bodyTraceId.toLowerCase();
    traceId = validTraceId(lower) ? lower : hex(bodyTraceId, 32);
  } else if (header && validTraceId(header.traceId)) {
    traceId = header.traceId;
    parentSpanId = header.spanId;
  } else {
    traceId = ownTraceId(record.id);
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
  };
}

/** Whether a trace is sent to a destination sampling at `rate`: decided by the trace id, so a trace is sent whole. */
export function isSampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return Number.parseInt(traceId.slice(-8), 16) / 0x1_0000_0000 < rate;
}
