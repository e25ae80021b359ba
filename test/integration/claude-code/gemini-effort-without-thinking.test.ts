/**
 * The real Claude Code CLI on a Gemini model: with MAX_THINKING_TOKENS=0 it sends `output_config.effort: high`
 * and no `thinking`, and Gemini gets the effort as its thinking budget without thought summaries
 * (`includeThoughts`), which Anthropic would not show either; by default it sends adaptive thinking, and the
 * summaries are asked for. The CLI prints the answer both times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiStep, startFakeGemini } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const MODEL = 'google/gemini-2.5-pro';
const ANSWER = 'Three.';
const USAGE = { input: 900, output: 3 };

interface CliBody {
  thinking?: { type: string };
  output_config?: { effort?: string };
}

let target: ClaudeCodeTarget;
beforeAll(async () => {
  target = await startClaudeCodeTarget({ startUpstream: startFakeGemini, providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-effort-0001" }` });
});
afterAll(() => target?.close());

describe('Claude Code on Gemini, thought summaries only with thinking on', () => {
  it.each([
    ['MAX_THINKING_TOKENS=0', { MAX_THINKING_TOKENS: '0' }, undefined, { thinkingBudget: 19_200 }],
    ['the default', {}, { type: 'adaptive', display: 'updates' }, { thinkingBudget: 19_200, includeThoughts: true }],
  ])('with %s', async (_name, extraEnv, cliThinking, thinkingConfig) => {
    resetTarget(target);
    target.upstream.enqueue(geminiStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'How many r are in strawberry?', model: MODEL, variable: 'ANTHROPIC_AUTH_TOKEN', extraEnv, timeoutMs: 60_000 });
    expectAnswer(outcome, target, ANSWER);
    const context = describeRun(outcome, target);

    const [call] = messageCalls(target, 1);
    const cli = call?.body as CliBody;
    expect({ thinking: cli.thinking, effort: cli.output_config?.effort }, context).toEqual({ thinking: cliThinking, effort: 'high' });
    const sent = target.upstream.requests[0]?.body as { generationConfig: { thinkingConfig?: unknown } };
    // `high` is 60% of the CLI's max_tokens of 32000, leaving the answer room (the AI SDK's own mapping sent 32768).
    expect((call?.body as { max_tokens?: number }).max_tokens, context).toBe(32_000);
    expect(sent.generationConfig.thinkingConfig, context).toEqual(thinkingConfig);
  });
});
