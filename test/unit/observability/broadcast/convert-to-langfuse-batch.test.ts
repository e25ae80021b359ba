/**
 * The Langfuse ingestion events of a generation: without a tool loop one generation observation with the
 * request's totals (unchanged); with one, the request is a span and each finished step a generation under it
 * with its own model, usage, cost and window, so Langfuse's per-trace cost sum counts every step once. A
 * moderation model's screening is a generation of its own carrying its cost, taken off the request's.
 */
import { describe, expect, it } from 'vitest';
import { convertToLangfuseEvents, type LangfuseEvent } from '#src/observability/broadcast/convert-to-langfuse-batch.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { alpha, at, ID, loop, plain, screening, SCREENING_COST, STARTED, tracedItem } from '#test/unit/observability/broadcast/broadcast-fixtures.ts';

function events(outcome: GenerationOutcome, includeContent = false): LangfuseEvent[] {
  return convertToLangfuseEvents(tracedItem(outcome), { includeContent });
}

describe('convertToLangfuseEvents', () => {
  it('without a tool loop sends the trace and one generation with the totals, byte for byte as before', () => {
    // Compared as JSON text, so the order of the fields is held too.
    expect(JSON.stringify(events(plain()))).toBe(JSON.stringify([
      { id: `${ID}-trace`, type: 'trace-create', timestamp: at(0), body: { id: 'run-1', timestamp: at(0), userId: 'u1', sessionId: 's1', metadata: { team: 'search' } } },
      {
        id: `${ID}-generation`,
        type: 'generation-create',
        timestamp: at(0),
        body: {
          id: ID,
          traceId: 'run-1',
          name: 'chat test/claude',
          startTime: at(0),
          endTime: at(100),
          completionStartTime: at(100),
          // The model Alpha's answer named, as Langfuse's model definitions name models.
          model: 'up-a-20251101',
          modelParameters: { max_tokens: 64, temperature: 0.5 },
          usageDetails: { input: 10, output: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
          costDetails: { total: 0.001 },
          metadata: { team: 'search', provider: 'alpha', requested_model: 'test/claude', gateway_model: 'test/claude', is_byok: false, status: 'success', attempts: [{ provider: 'Alpha', model: 'test/claude', status: 'success', http_status: 200, is_byok: false, duration_ms: 90, response_model: 'up-a-20251101' }] },
          level: 'DEFAULT',
          statusMessage: 'end_turn',
        },
      },
    ]));
  });

  it('with a tool loop sends the request as a span and each finished step as a generation under it', () => {
    const batch = events(loop(), true);
    expect(batch.map((event) => [event.id, event.type])).toEqual([
      [`${ID}-trace`, 'trace-create'],
      [`${ID}-generation`, 'span-create'],
      [`${ID}-step-1`, 'generation-create'],
      [`${ID}-step-2`, 'generation-create'],
    ]);
    const [, request, first, second] = batch;
    expect(request!.body).toEqual({
      id: ID,
      traceId: 'run-1',
      name: 'chat test/claude',
      startTime: at(0),
      endTime: at(300),
      metadata: {
        team: 'search',
        provider: 'beta',
        // The last step's vendor model (Beta's answer named none: the id it was asked for).
        model: 'up-b',
        requested_model: 'test/claude',
        gateway_model: 'test/claude',
        is_byok: true,
        status: 'success',
        steps: 2,
        usage: { input: 2200, output: 110, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 },
        cost: 0.0045 + 0.00375,
        attempts: [expect.objectContaining({ provider: 'Alpha', status: 'success' }), expect.objectContaining({ provider: 'Alpha', status: 'overloaded' }), expect.objectContaining({ provider: 'Beta', status: 'success' })],
      },
      level: 'DEFAULT',
      statusMessage: 'end_turn',
      input: { messages: [{ role: 'user', content: 'Time?' }] },
      output: [{ type: 'text', text: 'Noon.' }],
    });
    // Attempts laid back to back ending at 300 ms: 30-130 (step 1), 130-180 and 180-300 (step 2).
    expect(first!.body).toEqual({
      id: `${ID}-step-1`,
      traceId: 'run-1',
      parentObservationId: ID,
      name: 'step 1',
      startTime: at(30),
      endTime: at(130),
      model: 'up-a-20251101',
      modelParameters: { max_tokens: 64, temperature: 0.5 },
      usageDetails: { input: 1000, output: 100, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 },
      costDetails: { total: 0.0045 },
      metadata: { team: 'search', step: 1, provider: 'alpha', gateway_model: 'test/claude', is_byok: false, stop_reason: 'tool_use', tools_called: ['datetime'], tools_disabled: false, attempts: [expect.objectContaining({ provider: 'Alpha', status: 'success' })] },
      level: 'DEFAULT',
    });
    expect(second!.body).toMatchObject({
      id: `${ID}-step-2`,
      parentObservationId: ID,
      name: 'step 2',
      // Beta's answer named no model: the vendor's id the step asked for.
      model: 'up-b',
      startTime: at(130),
      endTime: at(300),
      completionStartTime: at(300),
      usageDetails: { input: 1200, output: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      costDetails: { total: 0.00375 },
      metadata: { step: 2, provider: 'beta', is_byok: true, stop_reason: 'end_turn', tools_called: [], tools_disabled: true },
    });
    expect(second!.body.metadata).toMatchObject({ attempts: [expect.objectContaining({ status: 'overloaded' }), expect.objectContaining({ provider: 'Beta' })] });
    // Costs live on the steps only (Langfuse sums a trace's generations), and add up to the request's.
    expect(request!.body).not.toHaveProperty('costDetails');
    expect(request!.body).not.toHaveProperty('usageDetails');
    expect((first!.body.costDetails as { total: number }).total + (second!.body.costDetails as { total: number }).total).toBe(0.0045 + 0.00375);
    // Content only on the request's observation.
    for (const step of [first!, second!]) {
      expect(step.body).not.toHaveProperty('input');
      expect(step.body).not.toHaveProperty('output');
    }
  });

  it('names the same events the same way every time, so a retried delivery is deduplicated', () => {
    expect(events(loop())).toEqual(events(loop()));
  });

  it('puts the request span under the span_name span, and the steps under the request', () => {
    const batch = events(loop({ request: { model: 'test/claude', max_tokens: 64, messages: [], trace: { trace_id: 'run-1', parent_span_id: 'caller-1', span_name: 'agent' } } }));
    expect(batch.map((event) => event.type)).toEqual(['trace-create', 'span-create', 'span-create', 'generation-create', 'generation-create']);
    const [, named, request, ...steps] = batch;
    expect(named!.body).toMatchObject({ name: 'agent', parentObservationId: 'caller-1' });
    expect(request!.body).toMatchObject({ id: ID, parentObservationId: named!.body.id });
    for (const step of steps) expect(step.body.parentObservationId).toBe(ID);
  });

  it('a loop that failed after its first step: an ERROR span, the finished step still a generation with its cost', () => {
    const outcome = loop();
    const batch = events(
      loop({ steps: outcome.steps!.slice(0, 1), usage: null, status: 'error', httpStatus: 502, stopReason: null, served: alpha, error: { type: 'api_error', message: 'upstream failed' }, completion: null, timeToFirstByteMs: null }),
    );
    expect(batch.map((event) => event.type)).toEqual(['trace-create', 'span-create', 'generation-create']);
    expect(batch[1]!.body).toMatchObject({ level: 'ERROR', statusMessage: 'upstream failed', metadata: { status: 'error', cost: 0.0045, steps: 1 } });
    expect(batch[2]!.body).toMatchObject({ id: `${ID}-step-1`, parentObservationId: ID, costDetails: { total: 0.0045 }, level: 'DEFAULT' });
    expect(batch[2]!.body).not.toHaveProperty('completionStartTime');
  });

  describe('a moderation model\'s screening', () => {
    const costOf = (event: LangfuseEvent | undefined) => (event?.body.costDetails as { total: number } | undefined)?.total ?? 0;
    const sum = (batch: LangfuseEvent[]) => batch.filter((event) => event.type === 'generation-create').reduce((total, event) => total + costOf(event), 0);

    it('is a generation under the request carrying the screening\'s cost; the request carries the rest', () => {
      // The answer's cost includes the screening, as the key was charged.
      const batch = events(plain({ screening: screening(), usage: { ...plain().usage, cost: 0.001 + SCREENING_COST } }));
      expect(batch.map((event) => [event.id, event.type])).toEqual([
        [`${ID}-trace`, 'trace-create'],
        [`${ID}-generation`, 'generation-create'],
        [`${ID}-moderation`, 'generation-create'],
      ]);
      const [, request, screened] = batch;
      expect(screened!.body).toEqual({
        id: `${ID}-moderation`,
        traceId: 'run-1',
        parentObservationId: ID,
        name: 'moderation test/guard',
        startTime: at(2),
        endTime: at(8),
        model: 'claude-guard-20251001',
        usageDetails: { input: 90, output: 12, cache_read_input_tokens: 8, cache_creation_input_tokens: 0 },
        costDetails: { total: SCREENING_COST },
        metadata: { team: 'search', plugin: 'moderation', provider: 'anthropic', gateway_model: 'test/guard', is_byok: false },
        level: 'DEFAULT',
      });
      expect(costOf(request)).toBeCloseTo(0.001, 15);
      expect(request!.body.metadata).toMatchObject({ cost: 0.001 + SCREENING_COST });
      expect(request!.body.usageDetails).toEqual({ input: 10, output: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(sum(batch)).toBeCloseTo(0.001 + SCREENING_COST, 15);
    });

    it('adds its cost to a tool loop\'s steps, and the trace starts when the screening did', () => {
      const batch = events(loop({ screening: screening({ startedAt: STARTED - 3, endedAt: STARTED + 20 }), usage: { ...loop().usage, cost: 0.0045 + 0.00375 + SCREENING_COST } }));
      expect(batch.map((event) => event.id)).toEqual([`${ID}-trace`, `${ID}-generation`, `${ID}-moderation`, `${ID}-step-1`, `${ID}-step-2`]);
      expect(batch[0]!.body.timestamp).toBe(at(-3));
      expect(batch[1]!.body).toMatchObject({ startTime: at(-3), endTime: at(300) });
      expect(batch[2]!.body).toMatchObject({ parentObservationId: ID, startTime: at(-3), endTime: at(20) });
      expect(sum(batch)).toBeCloseTo(0.0045 + 0.00375 + SCREENING_COST, 15);
    });

    it('a flagged input answered with a refusal: the screening carries the whole charge, the request nothing', () => {
      const batch = events(plain({ screening: screening(), attempts: [], served: null, usage: { input_tokens: 0, output_tokens: 0, cost: SCREENING_COST }, stopReason: 'refusal', status: 'refusal', completion: [] }));
      expect(costOf(batch[1])).toBe(0);
      expect(costOf(batch[2])).toBe(SCREENING_COST);
    });
  });
});
