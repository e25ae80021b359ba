import { describe, expect, it } from 'vitest';
import { EFFORT_FOR_BUDGET, effortForBudget, type ReasoningOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';
import { fitGeminiThinkingBudget } from '#src/providers/ai-sdk/gemini-thinking-budget.ts';
import { geminiTakesThinkingLevel, levelInsteadOfBudget } from '#src/providers/ai-sdk/gemini-thinking-level.ts';

const withBudget = (thinkingBudget: number, reasoning?: ReasoningOptions['reasoning']): ReasoningOptions => ({
  ...(reasoning ? { reasoning } : {}),
  providerOptions: { google: { thinkingConfig: { thinkingBudget, includeThoughts: true } } },
});

describe('effortForBudget (the level a Gemini 3 budget fits)', () => {
  it.each([
    [1024, 'low'],
    [4096, 'low'],
    [4097, 'medium'],
    [16_384, 'medium'],
    [16_385, 'high'],
    [31_999, 'high'],
  ])('%i tokens: %s', (budget, effort) => expect(effortForBudget(budget)).toBe(effort));

  it('is ordered and ends unbounded', () => {
    const bounds = EFFORT_FOR_BUDGET.map(({ upTo }) => upTo);
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
    expect(bounds.at(-1)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('geminiTakesThinkingLevel', () => {
  it.each([
    ['gemini-3-pro-preview', true],
    ['gemini-3-flash-preview', true],
    ['gemini-3.1-pro-preview', true],
    ['gemini-3.1-flash-lite', true],
    ['models/gemini-3.5-flash', true],
    ['gemini-3-pro-image-preview', false],
    ['gemini-2.5-pro', false],
    ['gemini-2.5-flash-lite', false],
    ['gemini-2.0-flash', false],
    ['gemini-exp-1206', false],
  ])('%s: %s', (model, takes) => expect(geminiTakesThinkingLevel(model)).toBe(takes));
});

describe('levelInsteadOfBudget', () => {
  it.each<[string, ReasoningOptions, number | undefined, string]>([
    ['budget 2048: low', withBudget(2048), 32_000, 'low'],
    ['budget 10000: medium', withBudget(10_000), 32_000, 'medium'],
    ['budget 31999 of 32000: high', withBudget(31_999), 32_000, 'high'],
    ['budget 20000 with max_tokens 8000: the usable 7999 is medium', withBudget(20_000), 8000, 'medium'],
    ['budget 2048 beside effort high: the effort', withBudget(2048, 'high'), 32_000, 'high'],
    ['budget 20000 beside effort low: the effort', withBudget(20_000, 'low'), 32_000, 'low'],
  ])('%s', (_name, reasoning, maxOutputTokens, level) => {
    const { value, warnings } = levelInsteadOfBudget({ reasoning, modelId: 'gemini-3-flash-preview', maxOutputTokens });
    expect(value).toEqual({ reasoning: level, providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } });
    expect(warnings).toHaveLength(1);
  });

  it('says what the budget became', () => {
    expect(levelInsteadOfBudget({ reasoning: withBudget(10_000), modelId: 'gemini-3.1-pro-preview', maxOutputTokens: 32_000 }).warnings).toEqual([
      'thinking.budget_tokens 10000 sent to gemini-3.1-pro-preview as thinkingLevel medium (the level of its budget): Gemini 3 and later think at levels',
    ]);
  });

  it('leaves options without a budget as they are', () => {
    const adaptive: ReasoningOptions = { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } };
    expect(levelInsteadOfBudget({ reasoning: adaptive, modelId: 'gemini-3-pro-preview', maxOutputTokens: 32_000 })).toEqual({ value: adaptive, warnings: [] });
  });
});

describe('fitGeminiThinkingBudget by generation', () => {
  it('gives Gemini 3 a level and Gemini 2.5 a budget for the same request', () => {
    const gemini3 = fitGeminiThinkingBudget({ reasoning: withBudget(8000, 'high'), modelId: 'gemini-3-pro-preview', maxOutputTokens: 32_000 }).value;
    const gemini25 = fitGeminiThinkingBudget({ reasoning: withBudget(8000, 'high'), modelId: 'gemini-2.5-pro', maxOutputTokens: 32_000 }).value;
    expect(gemini3).toEqual({ reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } });
    expect(gemini25).toEqual({ providerOptions: { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 8000 } } } });
  });
});
