/** The record builder: a pure function from a request's outcome and its workspace's content policy. */
import { describe, expect, it } from 'vitest';
import { buildGenerationRecord, generationContent } from '#src/observability/build-generation-record.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { Attempt } from '#src/routing/attempt.ts';

// Only the fields a record reads; the rest of an attempt (pricing, base URL, quirks) does not reach it.
const served = { model: 'test/m', upstreamModel: 'up-m', provider: { slug: 'p', displayName: 'P' }, credential: { kind: 'byok', id: 'c1' } } as unknown as Attempt;

const outcome = (overrides: Partial<GenerationOutcome> = {}): GenerationOutcome => ({
  id: `gen_${'a'.repeat(24)}`,
  startedAt: Date.UTC(2025, 10, 20, 12, 0, 0),
  accountId: '11111111-1111-4111-8111-111111111111',
  workspaceId: '22222222-2222-4222-8222-222222222222',
  keyHash: 'f'.repeat(64),
  request: { model: 'test/m', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], system: 'Sys', user: 'u1', trace: { trace_name: 't', custom: 1 } },
  sessionId: 's1',
  traceparent: null,
  stream: false,
  strategy: 'price',
  attempts: [{ attempt: served, index: 0, status: 'success', httpStatus: 200, durationMs: 12 }],
  served,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, cost: 0.0125, output_tokens_details: { reasoning_tokens: 4 } },
  stopReason: 'end_turn',
  completion: [{ type: 'text', text: 'Hello' }],
  status: 'success',
  httpStatus: 200,
  error: null,
  timeToFirstByteMs: 40.6,
  totalMs: 120.2,
  ...overrides,
});

const noContent = { storeContent: false, retentionDays: 30 };

describe('buildGenerationRecord', () => {
  it('maps identity, routing, usage, cost, timing and request metadata', () => {
    expect(buildGenerationRecord(outcome(), noContent)).toEqual({
      id: `gen_${'a'.repeat(24)}`,
      accountId: '11111111-1111-4111-8111-111111111111',
      workspaceId: '22222222-2222-4222-8222-222222222222',
      keyHash: 'f'.repeat(64),
      createdAt: new Date(Date.UTC(2025, 10, 20, 12, 0, 0)),
      requestedModel: 'test/m',
      model: 'test/m',
      provider: 'p',
      providerName: 'P',
      isByok: true,
      stream: false,
      status: 'success',
      httpStatus: 200,
      stopReason: 'end_turn',
      errorType: null,
      errorMessage: null,
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 3,
      cacheWriteTokens: 2,
      reasoningTokens: 4,
      cost: 0.0125,
      timeToFirstByteMs: 41,
      totalMs: 120,
      sessionId: 's1',
      userId: 'u1',
      trace: { trace_name: 't', custom: 1 },
      attempts: [{ provider: 'P', model: 'test/m', status: 'success', http_status: 200, is_byok: true, duration_ms: 12 }],
      toolSteps: null,
      prompt: null,
      completion: null,
      contentExpiresAt: null,
    });
  });

  it.each([
    ['no usage (a failure)', { usage: null }, { inputTokens: 0, outputTokens: 0, cost: 0, reasoningTokens: 0 }],
    ['null cache fields', { usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: null, cache_creation_input_tokens: null } }, { cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0 }],
    ['no served attempt', { served: null }, { model: null, provider: null, providerName: null, isByok: false }],
    ['a traceparent without trace', { request: { model: 'm', max_tokens: 1, messages: [] }, traceparent: '00-abc-def-01' }, { trace: { traceparent: '00-abc-def-01' }, userId: null }],
    ['no trace at all', { request: { model: 'm', max_tokens: 1, messages: [] } }, { trace: null }],
    ['an error', { status: 'error' as const, httpStatus: 502, error: { type: 'AllAttemptsFailedError', message: 'Every attempt failed' } }, { errorType: 'AllAttemptsFailedError', errorMessage: 'Every attempt failed', httpStatus: 502 }],
    ['no first byte', { timeToFirstByteMs: null }, { timeToFirstByteMs: null }],
  ])('%s', (_label, overrides, expected) => {
    expect(buildGenerationRecord(outcome(overrides as Partial<GenerationOutcome>), noContent)).toMatchObject(expected);
  });

  it('keeps the prompt and completion only under a storing policy, until its retention ends', () => {
    const record = buildGenerationRecord(outcome(), { storeContent: true, retentionDays: 7 });
    expect(record.prompt).toEqual({ system: 'Sys', messages: [{ role: 'user', content: 'Hi' }] });
    expect(record.completion).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(record.contentExpiresAt).toEqual(new Date(Date.UTC(2025, 10, 27, 12, 0, 0)));
  });

  it('generationContent omits an absent system prompt and a missing completion', () => {
    expect(generationContent(outcome({ request: { model: 'm', max_tokens: 1, messages: [] }, completion: null }))).toEqual({ prompt: { messages: [] }, completion: null });
  });
});
