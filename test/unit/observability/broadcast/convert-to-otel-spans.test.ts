/**
 * A generation as OpenTelemetry spans, read as plain `ReadableSpan` data: a moderation model's screening is
 * one CLIENT span under the generation span, named as an inference call, with its own id, the GenAI attributes
 * of its call, its cost and window (which the generation's window holds); without a screening the spans are
 * what they were. A tool-loop step's span leaves its call's attributes to the attempt that served it.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { convertToOtelSpans, type SpanEnvironment } from '#src/observability/broadcast/convert-to-otel-spans.ts';
import { SPAN_ROLE, spanIdFor } from '#src/observability/broadcast/trace-context.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { ID, loop, plain, screening, SCREENING_COST, STARTED, tracedItem } from '#test/unit/observability/broadcast/broadcast-fixtures.ts';

const environment: SpanEnvironment = { resource: resourceFromAttributes({ 'service.name': 'switchboard' }), scope: { name: 'test' }, includeContent: false };

const spansOf = (outcome: GenerationOutcome) => convertToOtelSpans(tracedItem(outcome), environment);
const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
const windowOf = (span: ReadableSpan) => [ms(span.startTime), ms(span.endTime)];
const byName = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name) as ReadableSpan;
const attributesOf = (span: ReadableSpan): Attributes => span.attributes;

/** A plain request screened from 2 to 8 ms; the answer's cost includes the screening, as the key was charged. */
const screened = (window?: Parameters<typeof screening>[0]) => plain({ screening: screening(window), usage: { ...plain().usage, cost: 0.001 + SCREENING_COST } });

describe('convertToOtelSpans', () => {
  it('shows the screening as a CLIENT span under the generation span, with its call\'s attributes and window', () => {
    const spans = spansOf(screened());
    expect(spans.map((span) => span.name)).toEqual(['chat test/claude', 'chat claude-guard', 'chat up-a']);
    const generation = spans[0]!;
    const span = byName(spans, 'chat claude-guard');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.spanContext()).toMatchObject({ traceId: generation.spanContext().traceId, spanId: spanIdFor(ID, SPAN_ROLE.screening) });
    expect(span.parentSpanContext?.spanId).toBe(generation.spanContext().spanId);
    expect(span.status.code).toBe(0);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-guard',
      'gen_ai.response.model': 'claude-guard-20251001',
      'switchboard.model': 'test/guard',
      'gen_ai.usage.input_tokens': 98,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.usage.cache_read.input_tokens': 8,
      'gen_ai.usage.cache_write.input_tokens': 0,
      'switchboard.plugin': 'moderation',
      'switchboard.cost_usd': SCREENING_COST,
      'switchboard.is_byok': false,
      // An inference call for the request's conversation; none of the client's request parameters applies to it.
      'gen_ai.conversation.id': 's1',
    });
    expect(windowOf(span)).toEqual([STARTED + 2, STARTED + 8]);
    // The generation span keeps the whole charge, the screening's included: it is the request's total.
    expect(attributesOf(generation)['switchboard.cost_usd']).toBe(0.001 + SCREENING_COST);
    expect(windowOf(generation)).toEqual([STARTED, STARTED + 100]);
  });

  it('widens the generation (and the spans above it) to hold a screening that started before the request\'s clock did', () => {
    const spans = spansOf({ ...screened({ startedAt: STARTED - 4, endedAt: STARTED + 30 }), request: { ...plain().request, trace: { trace_name: 'job', span_name: 'step' } } });
    expect(spans.map((span) => span.name)).toEqual(['job', 'step', 'chat test/claude', 'chat claude-guard', 'chat up-a']);
    for (const span of spans.slice(0, 3)) expect(windowOf(span)).toEqual([STARTED - 4, STARTED + 100]);
    expect(windowOf(spans[3]!)).toEqual([STARTED - 4, STARTED + 30]);
    // The model's attempt comes after the screening it waited for.
    expect(windowOf(spans[4]!)[0]).toBeGreaterThanOrEqual(STARTED + 30);
  });

  it('gives the screening an id no attempt, step or wrapping span has, next to a tool loop\'s steps', () => {
    const spans = spansOf(loop({ screening: screening(), request: { ...plain().request, trace: { trace_name: 'job', span_name: 'step' } } }));
    expect(spans.map((span) => span.name)).toEqual(['job', 'step', 'chat test/claude', 'chat claude-guard', 'step 1', 'step 2', 'chat up-a', 'chat up-a', 'chat up-b']);
    const ids = spans.map((span) => span.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
    const generation = spans[2]!.spanContext().spanId;
    expect(spans[3]!.parentSpanContext?.spanId).toBe(generation);
  });

  it('without a screening the spans are the generation and its attempts, as before', () => {
    const spans = spansOf(plain());
    expect(spans.map((span) => [span.name, span.parentSpanContext?.spanId ?? null])).toEqual([
      ['chat test/claude', null],
      ['chat up-a', spanIdFor(ID, SPAN_ROLE.generation)],
    ]);
    expect(spans.some((span) => 'switchboard.plugin' in span.attributes)).toBe(false);
    expect(windowOf(spans[0]!)).toEqual([STARTED, STARTED + 100]);
    expect(windowOf(spans[1]!)).toEqual([STARTED + 10, STARTED + 100]);
  });

  it('names what was asked and what the vendor answered with: SERVER generation, CLIENT attempts, INTERNAL steps', () => {
    const [generation, ...rest] = spansOf(plain());
    expect(generation!.kind).toBe(SpanKind.SERVER);
    expect(attributesOf(generation!)).toMatchObject({ 'gen_ai.request.model': 'test/claude', 'gen_ai.response.model': 'up-a-20251101' });
    // The slug that served is what was asked: not sent a second time.
    expect(attributesOf(generation!)).not.toHaveProperty(['switchboard.model']);
    expect(rest.map((span) => [span.name, span.kind, span.attributes['gen_ai.request.model'], span.attributes['gen_ai.response.model']])).toEqual([['chat up-a', SpanKind.CLIENT, 'up-a', 'up-a-20251101']]);

    const spans = spansOf(loop());
    // The generation names the model of the last step's answer; Beta's named none, so neither does it.
    expect(attributesOf(spans[0]!)).not.toHaveProperty('gen_ai.response.model');
    const steps = spans.filter((span) => span.name.startsWith('step '));
    // A step is no inference call of its own: its served attempt, under it, carries the call's attributes.
    expect(steps.map((span) => [span.kind, span.attributes])).toEqual([
      [SpanKind.INTERNAL, { 'switchboard.step': 1, 'switchboard.step.tools_called': expect.any(Array), 'switchboard.step.tools_disabled': false, 'switchboard.cost_usd': expect.any(Number) }],
      [SpanKind.INTERNAL, { 'switchboard.step': 2, 'switchboard.step.tools_called': [], 'switchboard.step.tools_disabled': true, 'switchboard.cost_usd': expect.any(Number) }],
    ]);
    const attempts = spans.filter((span) => span.name.startsWith('chat up-'));
    expect(attempts.map((span) => [span.kind, span.attributes['gen_ai.request.model'], span.attributes['gen_ai.response.model'], span.attributes['switchboard.model']])).toEqual([
      [SpanKind.CLIENT, 'up-a', 'up-a-20251101', 'test/claude'],
      [SpanKind.CLIENT, 'up-a', undefined, 'test/claude'],
      [SpanKind.CLIENT, 'up-b', undefined, 'test/claude'],
    ]);
  });
});
