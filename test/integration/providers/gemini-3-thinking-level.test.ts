/**
 * A client's `thinking.budget_tokens` on Gemini 3, over HTTP through the Anthropic SDK: Gemini 3 thinks at a
 * `thinkingLevel`, so the budget reaches it as the level it fits (up to 4,096 tokens low, up to 16,384
 * medium, beyond high), or as the request's effort when one is set, and never beside a `thinkingBudget`
 * (Google refuses both; the fake refuses them too). Before, the budget went as `thinkingBudget`, which
 * Gemini 3 takes only for backwards compatibility. Gemini 2.5 keeps its budget.
 */
import { describe, expect, it } from 'vitest';
import { askSeven, question, useGeminiThinkingGateway, type SentGeminiConfig as Sent } from '#test/integration/providers/gemini-thinking-support.ts';

const setup = useGeminiThinkingGateway(['gemini-3-pro-preview', 'gemini-3-flash-preview', 'gemini-2.5-pro']);

describe('thinking.budget_tokens on Gemini 3', () => {
  it.each<[string, string, Record<string, unknown>, Record<string, unknown>]>([
    ['budget 2048 on 3 Flash: low', 'gemini-3-flash-preview', { thinking: { type: 'enabled', budget_tokens: 2048 } }, { thinkingLevel: 'low', includeThoughts: true }],
    ['budget 10000 on 3 Flash: medium', 'gemini-3-flash-preview', { thinking: { type: 'enabled', budget_tokens: 10_000 } }, { thinkingLevel: 'medium', includeThoughts: true }],
    ['budget 31999 of max_tokens 32000 on 3 Pro: high', 'gemini-3-pro-preview', { thinking: { type: 'enabled', budget_tokens: 31_999 } }, { thinkingLevel: 'high', includeThoughts: true }],
    ['budget 2048 beside effort high: the effort', 'gemini-3-pro-preview', { thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { effort: 'high' } }, { thinkingLevel: 'high', includeThoughts: true }],
    ['the same request on 2.5 Pro keeps its budget', 'gemini-2.5-pro', { thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { effort: 'high' } }, { thinkingBudget: 2048, includeThoughts: true }],
  ])('%s', async (_name, upstream, controls, thinkingConfig) => {
    const message = await askSeven(setup, { model: `test/${upstream}`, max_tokens: 32_000, messages: question, ...controls });

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect((setup.gemini.lastRequest().body as Sent).generationConfig.thinkingConfig).toEqual(thinkingConfig);
  });

  it('streams with the level too', async () => {
    const message = await askSeven(setup, { model: 'test/gemini-3-flash-preview', max_tokens: 8000, messages: question, thinking: { type: 'enabled', budget_tokens: 6000 } }, true);

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect(setup.gemini.lastRequest()).toMatchObject({ streaming: true });
    expect((setup.gemini.lastRequest().body as Sent).generationConfig).toMatchObject({ maxOutputTokens: 8000, thinkingConfig: { thinkingLevel: 'medium', includeThoughts: true } });
  });
});
