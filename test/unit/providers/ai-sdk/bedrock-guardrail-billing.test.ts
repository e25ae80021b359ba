/** Whether Bedrock's guardrail refused a Converse call's prompt before the model ran (which AWS bills no inference for). */
import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import { guardrailBlockedPrompt } from '#src/providers/ai-sdk/bedrock-guardrail-billing.ts';

const usage = (output: number | undefined): LanguageModelV4Usage => ({
  inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const trace = (guardrail: Record<string, unknown>): SharedV4ProviderMetadata => ({ bedrock: { trace: { guardrail } } }) as unknown as SharedV4ProviderMetadata;

describe('guardrailBlockedPrompt', () => {
  it.each<[string, string, number | undefined, SharedV4ProviderMetadata | undefined, boolean]>([
    ['a guardrail, no output tokens, no trace', 'guardrail_intervened', 0, undefined, true],
    ['a guardrail, its trace assessing the input only', 'guardrail_intervened', 0, trace({ inputAssessment: { g1: { contentPolicy: { filters: [{ action: 'BLOCKED' }] } } } }), true],
    ['a guardrail that blocked the response (output tokens)', 'guardrail_intervened', 12, undefined, false],
    ['a guardrail whose trace holds the model output', 'guardrail_intervened', 0, trace({ modelOutput: ['{"content":"..."}'], outputAssessments: { g1: [{}] } }), false],
    ['a guardrail, output tokens not reported', 'guardrail_intervened', undefined, undefined, false],
    ['the model\'s own refusal (content_filtered)', 'content_filtered', 0, undefined, false],
    ['an ordinary end', 'end_turn', 0, undefined, false],
  ])('%s: %s', (_case, raw, output, providerMetadata, blocked) => {
    expect(guardrailBlockedPrompt({ finishReason: { unified: raw === 'end_turn' ? 'stop' : 'content-filter', raw }, usage: usage(output), providerMetadata })).toBe(blocked);
  });
});
