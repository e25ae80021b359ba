/**
 * Generation outcomes for the broadcast converters' unit tests, as plain data: a plain request, a two-step
 * tool loop, and a `moderation` plugin screening by a catalog model, on attempts holding only the fields the
 * converters read (pricing, base URL and quirks do not reach them). Times are milliseconds after STARTED.
 */
import { buildGenerationRecord } from '#src/observability/build-generation-record.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { resolveTraceContext } from '#src/observability/broadcast/trace-context.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';
import type { ScreeningCharge } from '#src/plugins/moderation/moderation-verdict.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { generationIdBound } from '#src/http/generation-id.ts';

/** A pool-key attempt on Alpha and a BYOK one on Beta, both of `test/claude`. */
export const alpha = { model: 'test/claude', upstreamModel: 'up-a', provider: { slug: 'alpha', displayName: 'Alpha' }, credential: { kind: 'pool', id: 'k1' } } as unknown as Attempt;
export const beta = { model: 'test/claude', upstreamModel: 'up-b', provider: { slug: 'beta', displayName: 'Beta' }, credential: { kind: 'byok', id: 'c1' } } as unknown as Attempt;
/** The moderation model's attempt, on Anthropic with a pool key. */
export const guard = { model: 'test/guard', upstreamModel: 'claude-guard', provider: { slug: 'anthropic', displayName: 'Anthropic' }, credential: { kind: 'pool', id: 'k2' } } as unknown as Attempt;

/** When the request arrived, in epoch milliseconds. */
export const STARTED = Date.UTC(2025, 10, 20, 12, 0, 0);
/** The generation id, made at STARTED as the gateway makes ids (its span ids are cut from it). */
export const ID = `${generationIdBound(STARTED)}${'b'.repeat(15)}`;
/** The ISO time `ms` after STARTED. */
export const at = (ms: number) => new Date(STARTED + ms).toISOString();

/** A JSON request served by Alpha in 90 of its 100 ms; Alpha's answer named a dated snapshot of `up-a`. */
export const plain = (overrides: Partial<GenerationOutcome> = {}): GenerationOutcome => ({
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
  attempts: [{ attempt: alpha, index: 0, status: 'success', httpStatus: 200, durationMs: 90, responseModel: 'up-a-20251101' }],
  served: alpha,
  steps: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost: 0.001 },
  stopReason: 'end_turn',
  responseId: 'msg_01fixture',
  completion: [{ type: 'text', text: 'Noon.' }],
  status: 'success',
  httpStatus: 200,
  error: null,
  timeToFirstByteMs: 100,
  totalMs: 100,
  ...overrides,
});

/** A two-step loop: step 1 on Alpha (its answer named `up-a-20251101`), step 2 failed over from Alpha (529) to Beta (its answer named no model). */
export function loop(overrides: Partial<GenerationOutcome> = {}): GenerationOutcome {
  const records: AttemptRecord[] = [
    { attempt: alpha, index: 0, status: 'success', httpStatus: 200, durationMs: 100, responseModel: 'up-a-20251101' },
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

/** USD of the screening below. */
export const SCREENING_COST = 0.0002;

/** The moderation model's screening call, from 2 to 8 ms after STARTED unless told otherwise. */
export function screening(window: { startedAt?: number; endedAt?: number } = {}): ScreeningCharge {
  return {
    attempt: guard,
    usage: { input_tokens: 90, output_tokens: 12, cache_creation_input_tokens: null, cache_read_input_tokens: 8 },
    cost: SCREENING_COST,
    startedAt: window.startedAt ?? STARTED + 2,
    endedAt: window.endedAt ?? STARTED + 8,
    responseModel: 'claude-guard-20251001',
  };
}

/** The outcome as the broadcaster hands it to a converter: its record (content not stored) and trace context. */
export function tracedItem(outcome: GenerationOutcome): TracedItem {
  const record = buildGenerationRecord(outcome, { storeContent: false, retentionDays: 30 });
  return { record, outcome, trace: resolveTraceContext(record) };
}
