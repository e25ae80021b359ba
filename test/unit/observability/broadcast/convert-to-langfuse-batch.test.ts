/**
 * The Langfuse ingestion events of a generation: without a tool loop one generation observation with the
 * request's totals (unchanged); with one, the request is a span and each finished step a generation under it
 * with its own model, usage, cost and window, so Langfuse's per-trace cost sum counts every step once.
 */
import { describe, expect, it } from 'vitest';
import { buildGenerationRecord } from '#src/observability/build-generation-record.ts';
import { convertToLangfuseEvents, type LangfuseEvent } from '#src/observability/broadcast/convert-to-langfuse-batch.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { resolveTraceContext } from '#src/observability/broadcast/trace-context.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';
import type { Attempt } from '#src/routing/attempt.ts';

// Only the fields the converter reads; pricing, base URL and quirks do not reach it.
const alpha = { model: 'test/claude', upstreamModel: 'up-a', provider: { slug: 'alpha', displayName: 'Alpha' }, credential: { kind: 'pool', id: 'k1' } } as unknown as Attempt;
const beta = { model: 'test/claude', upstreamModel: 'up-b', provider: { slug: 'beta', displayName: 'Beta' }, credential: { kind: 'byok', id: 'c1' } } as unknown as Attempt;
const ID = `gen_${'b'.repeat(24)}`;
const STARTED = Date.UTC(2025, 10, 20, 12, 0, 0);
const at = (ms: number) => new Date(STARTED + ms).toISOString();

const plain = (overrides: Partial<GenerationOutcome> = {}): GenerationOutcome => ({
  id: ID,
  startedAt: STARTED,
  accountId: '11111111-1111-4111-8111-111111111111',
  workspaceId: '22222222-2222-4222-8222-222222222222',
  keyHash: 'f'.repeat(64),
  request: { model: 'test/claude', max_tokens: 64, temperature: 0.5, messages: [{ role: 'user', content: 'Time?' }], user: 'u1', trace: { trace_id: 'run-1', team: 'search' } },
  sessionId: 's1',
  traceparent: null,
  stream: false,
  strategy: 'price',
  attempts: [{ attempt: alpha, index: 0, status: 'success', httpStatus: 200, durationMs: 90 }],
  served: alpha,
  steps: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost: 0.001 },
  stopReason: 'end_turn',
  completion: [{ type: 'text', text: 'Noon.' }],
  status: 'success',
  httpStatus: 200,
  error: null,
  timeToFirstByteMs: 100,
  totalMs: 100,
  ...overrides,
});

/** A two-step loop: step 1 on Alpha, step 2 failed over from Alpha (529) to Beta. */
function loop(overrides: Partial<GenerationOutcome> = {}): GenerationOutcome {
  const records: AttemptRecord[] = [
    { attempt: alpha, index: 0, status: 'success', httpStatus: 200, durationMs: 100 },
    { attempt: alpha, index: 0, status: 'overloaded', httpStatus: 529, durationMs: 50 },
    { attempt: beta, index: 1, status: 'success', httpStatus: 200, durationMs: 120 },
  ];
  const steps: StepRecord[] = [
    { step: 1, attempt: alpha, records: [records[0]!], stopReason: 'tool_use', usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: null, cache_read_input_tokens: 40 }, cost: 0.0045, toolsCalled: ['datetime'], toolsDisabled: false },
    { step: 2, attempt: beta, records: [records[1]!, records[2]!], stopReason: 'end_turn', usage: { input_tokens: 1200, output_tokens: 10, cache_creation_input_tokens: null, cache_read_input_tokens: null }, cost: 0.00375, toolsCalled: [], toolsDisabled: true },
  ];
  return plain({
    attempts: records,
    served: beta,
    steps,
    usage: { input_tokens: 2200, output_tokens: 110, cache_read_input_tokens: 40, cache_creation_input_tokens: null, cost: 0.0045 + 0.00375 },
    timeToFirstByteMs: 300,
    totalMs: 300,
    ...overrides,
  });
}

function events(outcome: GenerationOutcome, includeContent = false): LangfuseEvent[] {
  const record = buildGenerationRecord(outcome, { storeContent: false, retentionDays: 30 });
  const item: TracedItem = { record, outcome, trace: resolveTraceContext(record) };
  return convertToLangfuseEvents(item, { includeContent });
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
          model: 'test/claude',
          modelParameters: { max_tokens: 64, temperature: 0.5 },
          usageDetails: { input: 10, output: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
          costDetails: { total: 0.001 },
          metadata: { team: 'search', provider: 'alpha', requested_model: 'test/claude', is_byok: false, status: 'success', attempts: [{ provider: 'Alpha', model: 'test/claude', status: 'success', http_status: 200, is_byok: false, duration_ms: 90 }] },
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
        model: 'test/claude',
        requested_model: 'test/claude',
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
      model: 'test/claude',
      modelParameters: { max_tokens: 64, temperature: 0.5 },
      usageDetails: { input: 1000, output: 100, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 },
      costDetails: { total: 0.0045 },
      metadata: { team: 'search', step: 1, provider: 'alpha', is_byok: false, stop_reason: 'tool_use', tools_called: ['datetime'], tools_disabled: false, attempts: [expect.objectContaining({ provider: 'Alpha', status: 'success' })] },
      level: 'DEFAULT',
    });
    expect(second!.body).toMatchObject({
      id: `${ID}-step-2`,
      parentObservationId: ID,
      name: 'step 2',
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
});
