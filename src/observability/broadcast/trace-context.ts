/**
 * Where a generation sits in its caller's trace. `trace_id` and `parent_span_id` from the request's `trace`
 * object, or a W3C `traceparent` header, join the caller's trace; without either the generation starts its
 * own. Ids that are not W3C hex are hashed into one (so requests sharing a `trace_id` share a trace), and every
 * span id the gateway makes is derived from the generation id, so a retried delivery repeats the same ids.
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

/** A span id of the gateway's own, derived from the generation id and the span's role. */
export function spanIdFor(generationId: string, role: string): string {
  return hex(`${generationId}:${role}`, 16);
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
    traceId = hex(`${record.id}:trace`, 32);
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
