/** Where a generation sits in its caller's trace, and sampling by trace id. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newGenerationId } from '#src/http/generation-id.ts';
import { isSampled, resolveTraceContext, SPAN_ROLE, spanIdFor } from '#src/observability/broadcast/trace-context.ts';

const ID = `gen_${'c'.repeat(24)}`;
const HEX_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HEX_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('resolveTraceContext', () => {
  it.each([
    ['trace_id and parent_span_id', { trace_id: HEX_TRACE, parent_span_id: HEX_SPAN }, HEX_TRACE, HEX_SPAN],
    ['upper-case hex ids', { trace_id: HEX_TRACE.toUpperCase(), parent_span_id: HEX_SPAN.toUpperCase() }, HEX_TRACE, HEX_SPAN],
    ['a traceparent header', { traceparent: TRACEPARENT }, '0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'],
    ['trace_id wins over traceparent (parent from the body only)', { trace_id: HEX_TRACE, traceparent: TRACEPARENT }, HEX_TRACE, null],
    ['a traceparent with a body parent_span_id', { traceparent: TRACEPARENT, parent_span_id: HEX_SPAN }, '0af7651916cd43dd8448eb211c80319c', HEX_SPAN],
    ['an invalid traceparent', { traceparent: '00-zz-yy-01' }, undefined, null],
    ['a parent_span_id alone (no trace to join)', { parent_span_id: HEX_SPAN }, undefined, null],
    ['an all-zero trace id', { trace_id: '0'.repeat(32) }, undefined, null],
  ])('%s', (_label, trace, traceId, parentSpanId) => {
    const context = resolveTraceContext({ id: ID, trace });
    if (traceId) expect(context.traceId).toBe(traceId);
    else expect(context.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(context.parentSpanId).toBe(parentSpanId);
  });

  it('hashes a non-hex trace_id, so requests sharing it share a trace, and keeps it as written for Langfuse', () => {
    const first = resolveTraceContext({ id: ID, trace: { trace_id: 'run-42' } });
    const second = resolveTraceContext({ id: `gen_${'d'.repeat(24)}`, trace: { trace_id: 'run-42' } });
    expect(first.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(first.traceId).toBe(second.traceId);
    expect(first.externalTraceId).toBe('run-42');
  });

  it('starts a trace of its own, derived from the generation id, without a trace', () => {
    expect(resolveTraceContext({ id: ID, trace: null }).traceId).toBe(resolveTraceContext({ id: ID, trace: null }).traceId);
    expect(resolveTraceContext({ id: ID, trace: null }).traceId).not.toBe(resolveTraceContext({ id: `gen_${'e'.repeat(24)}`, trace: null }).traceId);
  });

  it('separates the known keys from custom metadata', () => {
    const context = resolveTraceContext({ id: ID, trace: { trace_name: 'a', span_name: 'b', generation_name: 'c', env: 'prod', n: 1, traceparent: TRACEPARENT } });
    expect(context).toMatchObject({ traceName: 'a', spanName: 'b', generationName: 'c', metadata: { env: 'prod', n: 1 } });
  });

  it('derives stable, distinct span ids per role', () => {
    expect(spanIdFor(ID, SPAN_ROLE.generation)).toMatch(/^[0-9a-f]{16}$/);
    expect(spanIdFor(ID, SPAN_ROLE.generation)).toBe(spanIdFor(ID, SPAN_ROLE.generation));
    expect(spanIdFor(ID, SPAN_ROLE.attempt)).not.toBe(spanIdFor(ID, SPAN_ROLE.attempt + 1));
  });

  it('cuts the ids from the generation id\'s bytes: the first sixteen the trace, the last eight each span, its first byte xor the role', () => {
    // 24 base64url characters: 18 bytes.
    const id = 'gen_ABCDEFGHIJKLMNOPQRSTUV__';
    const bytes = Buffer.from('ABCDEFGHIJKLMNOPQRSTUV__', 'base64url');
    const span = (role: number) => Buffer.from([(bytes[10]! ^ role) & 0xff, ...bytes.subarray(11)]).toString('hex');
    // Interleaved with other generations' ids, as a broadcast asks for them.
    for (const role of [SPAN_ROLE.screening, SPAN_ROLE.generation, SPAN_ROLE.attempt + 2, SPAN_ROLE.step + 3, 256 + 5]) {
      expect(spanIdFor(ID, role)).not.toBe(spanIdFor(id, role));
      expect(spanIdFor(id, role)).toBe(span(role));
    }
    expect(resolveTraceContext({ id, trace: null }).traceId).toBe(bytes.subarray(0, 16).toString('hex'));
  });

  it('cuts the same ids from any id as the base64url decoding of what follows its underscore', () => {
    // The ids as Node's decoder gives them, hashed when fewer than sixteen bytes come out.
    const reference = (id: string) => {
      const decodedBytes = Buffer.from(id.slice(id.indexOf('_') + 1), 'base64url');
      const bytes = decodedBytes.length >= 16 ? decodedBytes : createHash('sha256').update(id).digest();
      const at = bytes.length - 8;
      return { traceId: bytes.subarray(0, 16).toString('hex'), span: Buffer.from([(bytes[at]! ^ SPAN_ROLE.attempt) & 0xff, ...bytes.subarray(at + 1, at + 8)]).toString('hex') };
    };
    const ids = [
      ...Array.from({ length: 200 }, () => newGenerationId()),
      `gen_${'_'.repeat(24)}`, `gen_${'-'.repeat(24)}`, `gen_${'A'.repeat(24)}`, `gen_${'9'.repeat(24)}`,
      // Not 24 base64url characters: another character, another length, no prefix.
      `gen_${'a'.repeat(23)}=`, `gen_${'a'.repeat(23)}.`, `gen_${'a'.repeat(23)}é`, `gen_${'a'.repeat(23)}\u0141`, `gen_${'a'.repeat(25)}`,
      `gen_${'a'.repeat(32)}`, 'a'.repeat(24), `x_y_${'b'.repeat(24)}`, `gen_${'a'.repeat(12)} ${'a'.repeat(11)}`,
    ];
    for (const id of ids) {
      expect({ traceId: resolveTraceContext({ id, trace: null }).traceId, span: spanIdFor(id, SPAN_ROLE.attempt) }, id).toEqual(reference(id));
    }
  });

  it('hashes a generation id too short to cut ids from', () => {
    const digest = createHash('sha256').update('gen_short').digest();
    expect(resolveTraceContext({ id: 'gen_short', trace: null }).traceId).toBe(digest.subarray(0, 16).toString('hex'));
    expect(spanIdFor('gen_short', SPAN_ROLE.attempt)).toBe(Buffer.from([digest[24]! ^ SPAN_ROLE.attempt, ...digest.subarray(25)]).toString('hex'));
  });
});

describe('isSampled', () => {
  it.each([
    [1, true],
    [0, false],
  ])('rate %s', (rate, expected) => {
    expect(isSampled('f'.repeat(32), rate)).toBe(expected);
    expect(isSampled('0'.repeat(32), rate)).toBe(expected);
  });

  it('keeps about the rate of traces, each decided by its id', () => {
    const ids = Array.from({ length: 2000 }, () => resolveTraceContext({ id: newGenerationId(), trace: null }).traceId);
    const kept = ids.filter((traceId) => isSampled(traceId, 0.25)).length;
    expect(kept).toBeGreaterThan(400);
    expect(kept).toBeLessThan(600);
    expect(ids.map((traceId) => isSampled(traceId, 0.25))).toEqual(ids.map((traceId) => isSampled(traceId, 0.25)));
  });
});
