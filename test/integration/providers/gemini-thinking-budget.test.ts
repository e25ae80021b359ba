/**
 * The thinkingBudget Gemini 2.5 gets, over HTTP through the Anthropic SDK. Gemini counts thinking inside
 * maxOutputTokens and refuses a budget outside the model's range (the fake refuses it too): an effort's
 * budget is its share of the client's max_tokens (before, the AI SDK sized it from the model's 65,536, so
 * Claude Code's adaptive thinking at effort high on 2.5 Pro sent 32,768 beside 32,000), and a client's
 * budget_tokens above the model's largest is lowered to it (before, 30,000 reached 2.5 Flash: a 400).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { geminiStep } from '#test/helpers/fake-upstreams/index.ts';
import { anthropicClient } from '#test/integration/routing/routing-support.ts';
import { useGeminiThinkingGateway } from '#test/integration/providers/gemini-thinking-support.ts';

const setup = useGeminiThinkingGateway(['gemini-2.5-pro', 'gemini-2.5-flash'], [1, 2]);

type Sent = { generationConfig: { maxOutputTokens: number; thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean } } };

describe('the thinkingBudget sent to Gemini 2.5', () => {
  it.each<[string, string, Record<string, unknown>, number, { thinkingBudget: number; includeThoughts?: boolean }]>([
    ['adaptive thinking at effort high (Claude Code) on 2.5 Pro', 'gemini-2.5-pro', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, 32_000, { thinkingBudget: 19_200, includeThoughts: true }],
    ['budget_tokens 30000 on 2.5 Flash', 'gemini-2.5-flash', { thinking: { type: 'enabled', budget_tokens: 30_000 } }, 32_000, { thinkingBudget: 24_576, includeThoughts: true }],
    ['effort high without thinking on 2.5 Flash, max_tokens 4000', 'gemini-2.5-flash', { output_config: { effort: 'high' } }, 4000, { thinkingBudget: 2400 }],
  ])('%s: within the range, below maxOutputTokens', async (_name, upstream, controls, maxTokens, thinkingConfig) => {
    setup.gemini.enqueue(geminiStep({ text: 'Seven.', usage: { input: 20, output: 3 } }));
    const body = { model: `test/${upstream}`, max_tokens: maxTokens, messages: [{ role: 'user', content: 'How many days in a week?' }], ...controls } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const message = await anthropicClient(setup.gateway).messages.create(body);

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Seven.' })]);
    const sent = (setup.gemini.lastRequest().body as Sent).generationConfig;
    expect(sent).toMatchObject({ maxOutputTokens: maxTokens });
    expect(sent.thinkingConfig).toEqual(thinkingConfig);
    expect(sent.thinkingConfig!.thinkingBudget).toBeLessThan(sent.maxOutputTokens);
  });
});
