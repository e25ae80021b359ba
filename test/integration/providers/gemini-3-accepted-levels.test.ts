/**
 * Each Gemini 3 model gets a `thinkingLevel` it accepts, over HTTP through the Anthropic SDK. Google refuses
 * `medium` on Gemini 3 Pro with a 400 (the fake refuses it too) although `@ai-sdk/google` sends it: an
 * effort or budget of medium failed there. Now a level the model does not take goes as the nearest it does
 * (ties upward: 3 Pro's medium is high), `xhigh` and `max` as its highest, and disabled thinking as its least
 * (no Gemini 3 Pro can stop thinking); the last three the AI SDK's own fallback already chose, and are
 * pinned here so the table keeps them.
 */
import { describe, expect, it } from 'vitest';
import { askSeven, question, useGeminiThinkingGateway, type SentGeminiConfig as Sent } from '#test/integration/providers/gemini-thinking-support.ts';

const setup = useGeminiThinkingGateway(['gemini-3-pro-preview', 'gemini-3.1-pro-preview', 'gemini-3-flash-preview']);
const effort = (level: string) => ({ output_config: { effort: level } });

describe('the thinking levels each Gemini 3 model accepts', () => {
  it.each<[string, string, Record<string, unknown>, Record<string, unknown> | undefined]>([
    ['effort medium on 3 Pro: high (Google refuses medium there)', 'gemini-3-pro-preview', effort('medium'), { thinkingLevel: 'high' }],
    ['budget 10000 (medium) on 3 Pro: high', 'gemini-3-pro-preview', { thinking: { type: 'enabled', budget_tokens: 10_000 } }, { thinkingLevel: 'high', includeThoughts: true }],
    ['effort low on 3 Pro: low', 'gemini-3-pro-preview', effort('low'), { thinkingLevel: 'low' }],
    ['thinking disabled on 3 Pro: low, its least', 'gemini-3-pro-preview', { thinking: { type: 'disabled' } }, { thinkingLevel: 'low' }],
    ['effort medium on 3.1 Pro: medium', 'gemini-3.1-pro-preview', effort('medium'), { thinkingLevel: 'medium' }],
    ['effort xhigh on 3.1 Pro: high, its highest', 'gemini-3.1-pro-preview', effort('xhigh'), { thinkingLevel: 'high' }],
    ['effort max on 3 Flash: high, its highest', 'gemini-3-flash-preview', effort('max'), { thinkingLevel: 'high' }],
    ['thinking disabled on 3 Flash: minimal', 'gemini-3-flash-preview', { thinking: { type: 'disabled' } }, { thinkingLevel: 'minimal' }],
  ])('%s', async (_name, upstream, controls, thinkingConfig) => {
    const message = await askSeven(setup, { model: `test/${upstream}`, max_tokens: 32_000, messages: question, ...controls });

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect((setup.gemini.lastRequest().body as Sent).generationConfig.thinkingConfig).toEqual(thinkingConfig);
  });

  it('streams adaptive thinking at effort medium on 3 Pro as high', async () => {
    const message = await askSeven(setup, { model: 'test/gemini-3-pro-preview', max_tokens: 8000, messages: question, thinking: { type: 'adaptive' }, ...effort('medium') }, true);

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    expect(setup.gemini.lastRequest()).toMatchObject({ streaming: true });
    expect((setup.gemini.lastRequest().body as Sent).generationConfig.thinkingConfig).toEqual({ thinkingLevel: 'high', includeThoughts: true });
  });
});
