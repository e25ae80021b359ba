/** The record builder: a pure function from a request's outcome and its workspace's content policy. */
import { describe, expect, it } from 'vitest';
import { buildGenerationRecord, generationContent } from '#src/observability/build-generation-record.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { OUTCOME_ID, servedAttempt as served, generationOutcome as outcome } from '#test/helpers/generation-outcome.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';

const noContent = { storeContent: false, retentionDays: 30 };

describe('buildGenerationRecord', () => {
  it('maps identity, routing, usage, cost, timing and request metadata', () => {
    expect(buildGenerationRecord(outcome(), noContent)).toEqual({
      id: OUTCOME_ID,
      accountId: '11111111-1111-4111-8111-111111111111',
      workspaceId: '22222222-2222-4222-8222-222222222222',
      keyHash: 'f'.repeat(64),
      createdAt: new Date(Date.UTC(2025, 10, 20, 12, 0, 0)),
      requestedModel: 'test/m',
      model: 'test/m',
      // The helper's attempt answer named no model.
      responseModel: null,
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
      usageEstimated: false,
      cost: 0.0125,
      timeToFirstByteMs: 41,
      totalMs: 120,
      sessionId: 's1',
      userId: 'u1',
      trace: { trace_name: 't', custom: 1 },
      attempts: [{ provider: 'P', model: 'test/m', status: 'success', http_status: 200, is_byok: true, duration_ms: 12 }],
      toolSteps: null,
      moderation: null,
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
    [
      "the vendor's model, from the served attempt's answer",
      { attempts: [{ attempt: served, index: 0, status: 'success', httpStatus: 200, durationMs: 12, responseModel: 'm-20250101' }] },
      { model: 'test/m', responseModel: 'm-20250101', attempts: [{ provider: 'P', model: 'test/m', status: 'success', http_status: 200, is_byok: true, duration_ms: 12, response_model: 'm-20250101' }] },
    ],
  ])('%s', (_label, overrides, expected) => {
    expect(buildGenerationRecord(outcome(overrides as Partial<GenerationOutcome>), noContent)).toMatchObject(expected);
  });

  it('keeps the prompt and completion only under a storing policy, until its retention ends', () => {
    const record = buildGenerationRecord(outcome(), { storeContent: true, retentionDays: 7 });
    expect(record.prompt).toEqual({ system: 'Sys', messages: [{ role: 'user', content: 'Hi' }] });
    expect(record.completion).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(record.contentExpiresAt).toEqual(new Date(Date.UTC(2025, 10, 27, 12, 0, 0)));
  });

  describe('a server-side tool loop', () => {
    const step = (number: number, input: number, output: number, cost: number, toolsCalled: string[]): StepRecord => ({
      step: number,
      attempt: served,
      records: [],
      stopReason: toolsCalled.length > 0 ? 'tool_use' : 'end_turn',
      usage: { input_tokens: input, output_tokens: output, cache_creation_input_tokens: null, cache_read_input_tokens: 7 },
      cost,
      toolsCalled,
      toolsDisabled: false,
    });
    const steps = [step(1, 100, 20, 0.0006, ['web_search']), step(2, 300, 30, 0.00135, [])];

    it('lists every step as gateway_metadata.steps does, and keeps the answer usage of a finished loop', () => {
      const record = buildGenerationRecord(outcome({ steps }), noContent);
      expect(record.toolSteps).toEqual([
        { step: 1, model: 'test/m', provider: 'P', is_byok: true, stop_reason: 'tool_use', tools_disabled: false, usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: null, cache_read_input_tokens: 7 }, cost: 0.0006, tools_called: ['web_search'] },
        { step: 2, model: 'test/m', provider: 'P', is_byok: true, stop_reason: 'end_turn', tools_disabled: false, usage: { input_tokens: 300, output_tokens: 30, cache_creation_input_tokens: null, cache_read_input_tokens: 7 }, cost: 0.00135, tools_called: [] },
      ]);
      expect(record).toMatchObject({ inputTokens: 10, outputTokens: 5, cost: 0.0125 });
    });

    it('counts the finished steps of a loop that failed partway: what the key was charged', () => {
      const failed = outcome({ steps: steps.slice(0, 1), usage: null, status: 'error', httpStatus: 502, error: { type: 'AllAttemptsFailedError', message: 'Every attempt failed' } });
      expect(buildGenerationRecord(failed, noContent)).toMatchObject({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 7, cost: 0.0006, status: 'error', toolSteps: [{ step: 1, cost: 0.0006 }] });
      // A stream cut in its second step: the partial usage of the events carries no cost, the steps do.
      const cut = outcome({ steps, usage: { input_tokens: 100 }, status: 'cancelled' });
      expect(buildGenerationRecord(cut, noContent)).toMatchObject({ inputTokens: 400, outputTokens: 50, cost: 0.0006 + 0.00135 });
    });

    it('an empty list (the loop failed in its first step) is no steps', () => {
      expect(buildGenerationRecord(outcome({ steps: [], usage: null }), noContent)).toMatchObject({ toolSteps: null, cost: 0 });
    });
  });

  describe('a moderation screening by a catalog model', () => {
    const screening = { attempt: served, usage: { input_tokens: 90, output_tokens: 12, cache_creation_input_tokens: null, cache_read_input_tokens: null }, cost: 0.0002, startedAt: 1_000, endedAt: 1_040 };

    it('names the model that screened, with its tokens and cost, and keeps the answer cost (which includes it)', () => {
      const record = buildGenerationRecord(outcome({ screening, usage: { input_tokens: 10, output_tokens: 5, cost: 0.0127 } }), noContent);
      // The screening's window is for trace destinations: the record (and the API) show what it cost, not when.
      expect(record.moderation).toEqual({ model: 'test/m', provider: 'P', is_byok: true, usage: screening.usage, cost: 0.0002 });
      expect(record).toMatchObject({ inputTokens: 10, outputTokens: 5, cost: 0.0127 });
    });

    it('charges the screening to a request that failed after it', () => {
      const failed = outcome({ screening, usage: null, status: 'error', httpStatus: 502, error: { type: 'AllAttemptsFailedError', message: 'Every attempt failed' } });
      expect(buildGenerationRecord(failed, noContent)).toMatchObject({ inputTokens: 0, cost: 0.0002, moderation: { cost: 0.0002 } });
    });
  });

  describe('a stream that ended before its usage', () => {
    // $1 and $2 per token in and out, $0.10 per cache-read token: the counts show in the cost.
    const pricing = { input: 1_000_000, output: 2_000_000, cache_read: 100_000 };
    const anthropic = { ...served, pricing, provider: { ...served.provider, family: 'anthropic' } } as typeof served;
    const translated = { ...served, pricing, provider: { ...served.provider, family: 'google' } } as typeof served;
    // "Sys" and "Hi" are two estimated input tokens; 9 streamed characters are 3 output tokens.
    const started = { input_tokens: 0, output_tokens: 0 };
    const reported = { input_tokens: 40, cache_read_input_tokens: 500, output_tokens: 1 };
    const failed = { stream: true, status: 'error' as const, httpStatus: 200, streamedCharacters: 9, completion: null };
    it.each<[string, Partial<GenerationOutcome>, { inputTokens: number; outputTokens: number; cacheReadTokens: number; usageEstimated: boolean; cost: number }]>([
      ['Anthropic-format, failed part-way: message_start as reported', { ...failed, served: anthropic, usage: reported }, { inputTokens: 40, outputTokens: 1, cacheReadTokens: 500, usageEstimated: false, cost: 40 + 50 + 2 }],
      ['translated, failed part-way: input and output estimated', { ...failed, served: translated, usage: started }, { inputTokens: 2, outputTokens: 3, cacheReadTokens: 0, usageEstimated: true, cost: 2 + 6 }],
      ['translated, cancelled: the same', { ...failed, status: 'cancelled', served: translated, usage: started }, { inputTokens: 2, outputTokens: 3, cacheReadTokens: 0, usageEstimated: true, cost: 2 + 6 }],
      ['failed before message_start: nothing', { ...failed, served: translated, usage: {} }, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, usageEstimated: false, cost: 0 }],
      ['a JSON request that failed: nothing', { ...failed, stream: false, served: translated, usage: null }, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, usageEstimated: false, cost: 0 }],
    ])('%s', (_name, overrides, expected) => {
      const record = buildGenerationRecord(outcome(overrides), noContent);
      expect({ inputTokens: record.inputTokens, outputTokens: record.outputTokens, cacheReadTokens: record.cacheReadTokens, usageEstimated: record.usageEstimated }).toEqual({
        inputTokens: expected.inputTokens,
        outputTokens: expected.outputTokens,
        cacheReadTokens: expected.cacheReadTokens,
        usageEstimated: expected.usageEstimated,
      });
      expect(record.cost).toBeCloseTo(expected.cost, 9);
    });
  });

  describe('an attempt whose vendor reported its usage as it failed', () => {
    // $1 and $2 per token in and out, $0.10 per cache-read token, on the attempt that failed; $10 in on the other.
    const responses = { ...served, pricing: { input: 1_000_000, output: 2_000_000, cache_read: 100_000 }, provider: { ...served.provider, family: 'openai-responses' } } as typeof served;
    const other = { ...served, pricing: { input: 10_000_000, output: 10_000_000 } } as typeof served;
    const billedUsage = { input_tokens: 40, cache_read_input_tokens: 500, output_tokens: 3 };
    const billedCost = 40 + 50 + 6;
    const failedAttempt = { attempt: responses, index: 0, status: 'server_error' as const, httpStatus: 500, durationMs: 5, billedUsage };

    it('a JSON request that failed: that usage at the attempt’s prices', () => {
      const record = buildGenerationRecord(outcome({ stream: false, status: 'error', httpStatus: 502, usage: null, served: null, attempts: [failedAttempt] }), noContent);
      expect(record).toMatchObject({ inputTokens: 40, cacheReadTokens: 500, outputTokens: 3, usageEstimated: false });
      expect(record.cost).toBeCloseTo(billedCost, 9);
    });

    it('a stream that failed part-way: that usage, not the estimate from the streamed characters', () => {
      const record = buildGenerationRecord(
        outcome({ stream: true, status: 'error', httpStatus: 200, streamedCharacters: 4_000, usage: { input_tokens: 0, output_tokens: 0 }, served: responses, attempts: [failedAttempt] }),
        noContent,
      );
      expect(record).toMatchObject({ inputTokens: 40, cacheReadTokens: 500, outputTokens: 3, usageEstimated: false });
      expect(record.cost).toBeCloseTo(billedCost, 9);
    });

    it('a later attempt answered: the answer and the failed attempt, each at its own prices', () => {
      const answered = { attempt: other, index: 1, status: 'success' as const, httpStatus: 200, durationMs: 5 };
      const record = buildGenerationRecord(outcome({ usage: { input_tokens: 2, output_tokens: 1, cost: 30 }, served: other, attempts: [failedAttempt, answered] }), noContent);
      expect(record).toMatchObject({ inputTokens: 42, cacheReadTokens: 500, outputTokens: 4 });
      expect(record.cost).toBeCloseTo(30 + billedCost, 9);
    });
  });

  describe('a refusal a plain request moved on from', () => {
    // $1 in and $2 out per token on the refusing attempt; $10 each on the serving one.
    const refusing = { ...served, model: 'test/refusing', pricing: { input: 1_000_000, output: 2_000_000 } } as typeof served;
    const serving = { ...served, pricing: { input: 10_000_000, output: 10_000_000 } } as typeof served;
    const refusedUsage = { input_tokens: 40, output_tokens: 3 };
    const refusedCost = 40 + 6;
    const refused = { attempt: refusing, index: 0, status: 'refusal' as const, httpStatus: 200, durationMs: 5, refusedUsage };
    const answered = { attempt: serving, index: 1, status: 'success' as const, httpStatus: 200, durationMs: 5 };

    it.each<[string, Partial<GenerationOutcome>, { inputTokens: number; outputTokens: number; cost: number }]>([
      // The answer's cost has the refusal (usage.cost), its counts are the serving call's: tokens added, cost kept.
      ['an answer after it', { usage: { input_tokens: 2, output_tokens: 1, cost: 30 + refusedCost }, served: serving, attempts: [refused, answered] }, { inputTokens: 42, outputTokens: 4, cost: 30 + refusedCost }],
      ['a request error after it', { status: 'error', httpStatus: 400, usage: null, served: null, attempts: [refused, { ...answered, status: 'invalid_request', httpStatus: 400 }] }, { inputTokens: 40, outputTokens: 3, cost: refusedCost }],
      [
        'a stream the client left during the serving answer (that call charged what it announced, at its prices)',
        { stream: true, status: 'cancelled', usage: { input_tokens: 2, output_tokens: 1 }, served: serving, attempts: [refused, answered] },
        { inputTokens: 42, outputTokens: 4, cost: 30 + refusedCost },
      ],
      // One its upstream does not bill (before any output, an unbilled category): its tokens, at no cost.
      ['an unbilled one, then a request error', { status: 'error', httpStatus: 400, usage: null, served: null, attempts: [{ ...refused, refusalUnbilled: true }, { ...answered, status: 'invalid_request', httpStatus: 400 }] }, { inputTokens: 40, outputTokens: 3, cost: 0 }],
      [
        'an unbilled one, then a stream the client left (the serving call charged what it announced)',
        { stream: true, status: 'cancelled', usage: { input_tokens: 2, output_tokens: 1 }, served: serving, attempts: [{ ...refused, refusalUnbilled: true }, answered] },
        { inputTokens: 42, outputTokens: 4, cost: 30 },
      ],
      // A refusal that is the answer carries no refusedUsage: its usage is the answer's.
      ['the refusal the answer', { stopReason: 'refusal', status: 'refusal', usage: { input_tokens: 40, output_tokens: 3, cost: refusedCost }, served: refusing, attempts: [{ ...refused, refusedUsage: undefined }] }, { inputTokens: 40, outputTokens: 3, cost: refusedCost }],
    ])('%s: charged the refused call once', (_, given, expected) => {
      const record = buildGenerationRecord(outcome(given), noContent);
      expect(record).toMatchObject({ inputTokens: expected.inputTokens, outputTokens: expected.outputTokens });
      expect(record.cost).toBeCloseTo(expected.cost, 9);
    });

    it("a tool loop's refusals are its steps' (not added again)", () => {
      const step = { step: 1, attempt: serving, records: [refused, answered], stopReason: 'end_turn', usage: { input_tokens: 2, output_tokens: 1, cache_creation_input_tokens: null, cache_read_input_tokens: null }, cost: 30 + refusedCost, toolsCalled: [], toolsDisabled: false } as StepRecord;
      const record = buildGenerationRecord(outcome({ usage: { input_tokens: 42, output_tokens: 4, cost: 30 + refusedCost }, served: serving, attempts: [refused, answered], steps: [step] }), noContent);
      expect(record).toMatchObject({ inputTokens: 42, outputTokens: 4 });
      expect(record.cost).toBeCloseTo(30 + refusedCost, 9);
    });

    it("a tool loop that failed after a later step's refusal: its finished steps and that refusal", () => {
      const step = { step: 1, attempt: serving, records: [answered], stopReason: 'tool_use', usage: { input_tokens: 2, output_tokens: 1, cache_creation_input_tokens: null, cache_read_input_tokens: null }, cost: 30, toolsCalled: ['datetime'], toolsDisabled: false } as StepRecord;
      const record = buildGenerationRecord(outcome({ status: 'error', httpStatus: 400, usage: null, served: serving, attempts: [answered, refused, { ...answered, status: 'invalid_request', httpStatus: 400 }], steps: [step] }), noContent);
      expect(record).toMatchObject({ inputTokens: 42, outputTokens: 4 });
      expect(record.cost).toBeCloseTo(30 + refusedCost, 9);
    });
  });

  describe("a streamed loop left during the step after a refusal, none finished", () => {
    // $1 in and $2 out per token on the refusing attempt; $10 each on the serving one (Anthropic-format: its
    // message_start's counts are charged as reported).
    const refusing = { ...served, model: 'test/refusing', pricing: { input: 1_000_000, output: 2_000_000 } } as typeof served;
    const serving = { ...served, pricing: { input: 10_000_000, output: 10_000_000 }, provider: { ...served.provider, family: 'anthropic' } } as typeof served;
    const usage = { input_tokens: 40, output_tokens: 3, cache_creation_input_tokens: null, cache_read_input_tokens: null };
    const refused = { attempt: refusing, index: 0, status: 'refusal' as const, httpStatus: 200, durationMs: 5, refusedUsage: usage };
    const answering = { attempt: serving, index: 1, status: 'success' as const, httpStatus: 200, durationMs: 5 };
    it.each<[string, boolean, number]>([
      ['billed', true, 30 + 40 + 6],
      ['unbilled (its record marked so too)', false, 30],
    ])('%s: the refused call once, from the step under way, and the serving call what it announced', (_, billed, cost) => {
      const record = buildGenerationRecord(
        outcome({
          stream: true,
          status: 'cancelled',
          // The observer's usage is the refused stream's message_start: the step under way's is the serving call's.
          usage: { input_tokens: 40, output_tokens: 1 },
          served: serving,
          attempts: [billed ? refused : { ...refused, refusalUnbilled: true }, answering],
          steps: [],
          stepUnderWay: { attempt: serving, request: { model: 'm', max_tokens: 1, messages: [] }, usage: { input_tokens: 2, output_tokens: 1 }, refused: [{ attempt: refusing, usage, billed }] },
        }),
        noContent,
      );
      expect(record).toMatchObject({ inputTokens: 42, outputTokens: 4, toolSteps: null });
      expect(record.cost).toBeCloseTo(cost, 9);
    });
  });

  it('generationContent omits an absent system prompt and a missing completion', () => {
    expect(generationContent(outcome({ request: { model: 'm', max_tokens: 1, messages: [] }, completion: null }))).toEqual({ prompt: { messages: [] }, completion: null });
  });
});
