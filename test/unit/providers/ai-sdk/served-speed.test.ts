/** `servedSpeedOf`: the tier OpenAI names in a fast call's answer, in Anthropic's `usage.speed` words. */
import { describe, expect, it } from 'vitest';
import { servedSpeedOf } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';

describe('servedSpeedOf', () => {
  it.each([
    ['priority processing ran it', { openai: { serviceTier: 'priority' } }, true, 'fast'],
    ["a later model's fast mode ran it", { openai: { serviceTier: 'fast' } }, true, 'fast'],
    ['sent to standard processing (ramp rate limit)', { openai: { serviceTier: 'default' } }, true, 'standard'],
    ['a tier it does not document for this', { openai: { serviceTier: 'auto' } }, true, undefined],
    ['no tier named (Chat Completions)', { openai: { responseId: 'resp_1' } }, true, undefined],
    ['no metadata', undefined, true, undefined],
    ["another vendor's namespace", { google: { serviceTier: 'default' } }, true, undefined],
    ['a call that did not ask for fast', { openai: { serviceTier: 'default' } }, false, undefined],
  ] as const)('%s', (_case, metadata, fast, expected) => {
    expect(servedSpeedOf(metadata, 'openai', fast)).toBe(expected);
  });
});
