import { describe, expect, it } from 'vitest';
import { acceptedLevel } from '#src/providers/ai-sdk/gemini-thinking-level.ts';
import { geminiThinkingLevels, nearestGeminiLevel, type GeminiThinkingLevel } from '#src/providers/ai-sdk/gemini-thinking-levels.ts';
import type { PortableReasoning } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';

describe('geminiThinkingLevels (by model family)', () => {
  it.each<[string, GeminiThinkingLevel[]]>([
    ['gemini-3-pro-preview', ['low', 'high']],
    ['models/gemini-3-pro-preview', ['low', 'high']],
    ['publishers/google/models/gemini-3-pro-preview', ['low', 'high']],
    ['gemini-3.1-pro-preview', ['low', 'medium', 'high']],
    ['gemini-3.1-pro-preview-customtools', ['low', 'medium', 'high']],
    ['gemini-3-flash-preview', ['minimal', 'low', 'medium', 'high']],
    ['gemini-3.1-flash-lite', ['minimal', 'low', 'medium', 'high']],
    ['gemini-3.5-flash', ['minimal', 'low', 'medium', 'high']],
    ['gemini-3.7-flash', ['low', 'medium', 'high']],
    ['gemini-3.7-flash-lite', ['minimal', 'low', 'medium', 'high']],
    ['gemini-4.0-flash', ['low', 'medium', 'high']],
    ['gemini-flash-latest', ['low', 'medium', 'high']],
    ['gemini-4-hydrogen', ['low', 'medium', 'high', 'xhigh']],
  ])('%s: %j', (model, levels) => expect(geminiThinkingLevels(model)).toEqual(levels));
});

describe('nearestGeminiLevel', () => {
  const pro3: GeminiThinkingLevel[] = ['low', 'high'];
  const pro31: GeminiThinkingLevel[] = ['low', 'medium', 'high'];
  const flash: GeminiThinkingLevel[] = ['minimal', 'low', 'medium', 'high'];
  const hydrogen: GeminiThinkingLevel[] = ['low', 'medium', 'high', 'xhigh'];
  it.each<[PortableReasoning, GeminiThinkingLevel[], PortableReasoning]>([
    ['medium', pro3, 'high'],
    ['low', pro3, 'low'],
    ['high', pro3, 'high'],
    ['xhigh', pro3, 'high'],
    ['max', pro3, 'high'],
    ['none', pro3, 'low'],
    ['minimal', pro3, 'low'],
    ['medium', pro31, 'medium'],
    ['none', pro31, 'low'],
    ['minimal', pro31, 'low'],
    ['max', pro31, 'high'],
    ['none', flash, 'minimal'],
    ['xhigh', flash, 'high'],
    ['medium', flash, 'medium'],
    ['xhigh', hydrogen, 'xhigh'],
    ['max', hydrogen, 'xhigh'],
    ['none', hydrogen, 'low'],
    ['provider-default', pro3, 'provider-default'],
  ])('%s among %j: %s', (asked, levels, level) => expect(nearestGeminiLevel(asked, levels)).toBe(level));

  it('always answers a level the model accepts', () => {
    const asks: PortableReasoning[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
    for (const levels of [pro3, pro31, flash, hydrogen]) for (const asked of asks) expect(levels).toContain(nearestGeminiLevel(asked, levels));
  });
});

describe('acceptedLevel', () => {
  it('moves a refused level and says so', () => {
    expect(acceptedLevel({ reasoning: { reasoning: 'medium', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } }, modelId: 'gemini-3-pro-preview' })).toEqual({
      value: { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } },
      warnings: ['thinkingLevel medium sent to gemini-3-pro-preview as high: the nearest of the levels it accepts (low, high)'],
    });
  });

  it('leaves an accepted level, and options without one, as they are', () => {
    expect(acceptedLevel({ reasoning: { reasoning: 'medium' }, modelId: 'gemini-3-flash-preview' })).toEqual({ value: { reasoning: 'medium' }, warnings: [] });
    expect(acceptedLevel({ reasoning: {}, modelId: 'gemini-3-pro-preview' })).toEqual({ value: {}, warnings: [] });
  });
});
