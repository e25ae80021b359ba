/**
 * A finished request's outcome as the generation observer hands it over, with every field set: the fixture of
 * the record builder's and the generation pipeline's unit tests. Overrides replace fields.
 */
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { generationIdBound } from '#src/http/generation-id.ts';

// Only the fields a record reads; the rest of an attempt (pricing, base URL, quirks) does not reach it.
export const servedAttempt = { model: 'test/m', upstreamModel: 'up-m', provider: { slug: 'p', displayName: 'P' }, credential: { kind: 'byok', id: 'c1' } } as unknown as Attempt;

/** When the request arrived, in epoch milliseconds; the outcome's id was made then, as the gateway makes ids. */
export const OUTCOME_STARTED = Date.UTC(2025, 10, 20, 12, 0, 0);
export const OUTCOME_ID = `${generationIdBound(OUTCOME_STARTED)}${'a'.repeat(15)}`;

export const generationOutcome = (overrides: Partial<GenerationOutcome> = {}): GenerationOutcome => ({
  id: OUTCOME_ID,
  startedAt: OUTCOME_STARTED,
  accountId: '11111111-1111-4111-8111-111111111111',
  workspaceId: '22222222-2222-4222-8222-222222222222',
  keyHash: 'f'.repeat(64),
  request: { model: 'test/m', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], system: 'Sys', user: 'u1', trace: { trace_name: 't', custom: 1 } },
  sessionId: 's1',
  traceparent: null,
  stream: false,
  strategy: 'price',
  attempts: [{ attempt: servedAttempt, index: 0, status: 'success', httpStatus: 200, durationMs: 12 }],
  served: servedAttempt,
  steps: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, cost: 0.0125, output_tokens_details: { thinking_tokens: 4 } },
  stopReason: 'end_turn',
  responseId: 'msg_01fixture',
  completion: [{ type: 'text', text: 'Hello' }],
  status: 'success',
  httpStatus: 200,
  error: null,
  timeToFirstByteMs: 40.6,
  totalMs: 120.2,
  ...overrides,
});
