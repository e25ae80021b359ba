import { describe, expect, it } from 'vitest';
import { fitGeminiThinkingBudget, geminiBudgetRange } from '#src/providers/ai-sdk/gemini-thinking-budget.ts';
import type { ReasoningOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';

const budgetOf = (value: ReasoningOptions) => (value.providerOptions?.google as { thinkingConfig?: { thinkingBudget?: number } } | undefined)?.thinkingConfig?.thinkingBudget;
const explicit = (thinkingBudget: number): ReasoningOptions => ({ providerOptions: { google: { thinkingConfig: { thinkingBudget, includeThoughts: true } } } });

describe('geminiBudgetRange', () => {
  it.each([
    ['gemini-2.5-pro', { min: 128, max: 32_768 }],
    ['gemini-2.5-pro-preview-06-05', { min: 128, max: 32_768 }],
    ['gemini-2.5-flash', { min: 1, max: 24_576 }],
    ['gemini-2.5-flash-lite', { min: 512, max: 24_576 }],
    ['gemini-3-pro-preview', undefined],
    ['gemini-2.0-flash', undefined],
  ])('%s: %j', (model, range) => expect(geminiBudgetRange(model)).toEqual(range));
});

describe('fitGeminiThinkingBudget', () => {
  it.each<[string, ReasoningOptions, string, number | undefined, number | undefined]>([
    // Claude Code's default on 2.5 Pro: adaptive thinking, effort high, max_tokens 32000 (the AI SDK sent 32768).
    ['effort high, 2.5 Pro, 32000', { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } }, 'gemini-2.5-pro', 32_000, 19_200],
    ['effort high without thinking, 2.5 Flash, 2000', { reasoning: 'high' }, 'gemini-2.5-flash', 2000, 1200],
    ['effort max, 2.5 Pro, 64000: the range caps it', { reasoning: 'max' }, 'gemini-2.5-pro', 64_000, 32_768],
    ['effort xhigh, 2.5 Flash, 10000', { reasoning: 'xhigh' }, 'gemini-2.5-flash', 10_000, 9000],
    ['effort low, 2.5 Pro, 1000: raised to the least Pro takes', { reasoning: 'low' }, 'gemini-2.5-pro', 1000, 128],
    ['budget 30000 on 2.5 Flash: its largest', explicit(30_000), 'gemini-2.5-flash', 32_000, 24_576],
    ['budget 31999 of 32000 on 2.5 Pro: its largest', explicit(31_999), 'gemini-2.5-pro', 32_000, 31_999],
    ['budget 40000 of 32000 on 2.5 Pro: below the output', explicit(40_000), 'gemini-2.5-pro', 32_000, 31_999],
    ['budget 2000 on 2.5 Flash-Lite, kept', explicit(2000), 'gemini-2.5-flash-lite', 8000, 2000],
    ['budget at the output on an unknown model: below it', explicit(8192), 'gemini-exp', 8192, 8191],
    ['effort on Gemini 3: left to the AI SDK (thinkingLevel)', { reasoning: 'high' }, 'gemini-3-pro-preview', 32_000, undefined],
    ['none: left to the AI SDK', { reasoning: 'none' }, 'gemini-2.5-flash', 32_000, undefined],
  ])('%s', (_name, reasoning, modelId, maxOutputTokens, expected) => {
    const { value } = fitGeminiThinkingBudget({ reasoning, modelId, maxOutputTokens });
    expect(budgetOf(value)).toBe(expected);
    if (expected !== undefined && maxOutputTokens !== undefined && expected > 128) expect(expected).toBeLessThan(maxOutputTokens);
  });

  it('keeps includeThoughts and drops the effort the budget replaces', () => {
    const { value, warnings } = fitGeminiThinkingBudget({ reasoning: { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } }, modelId: 'gemini-2.5-pro', maxOutputTokens: 32_000 });
    expect(value).toEqual({ providerOptions: { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 19_200 } } } });
    expect(warnings).toEqual([]);
  });

  it('says when a budget is changed, and when the least budget leaves no room', () => {
    expect(fitGeminiThinkingBudget({ reasoning: explicit(30_000), modelId: 'gemini-2.5-flash', maxOutputTokens: 32_000 }).warnings).toEqual([
      'thinking.budget_tokens 30000 sent to gemini-2.5-flash as thinkingBudget 24576: within its range and below maxOutputTokens',
    ]);
    expect(fitGeminiThinkingBudget({ reasoning: { reasoning: 'high' }, modelId: 'gemini-2.5-pro', maxOutputTokens: 100 }).warnings).toEqual([
      'thinkingBudget 128 (the least gemini-2.5-pro takes) leaves no room for the answer in max_tokens 100',
    ]);
  });
});
