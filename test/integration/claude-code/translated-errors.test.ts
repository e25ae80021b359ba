/**
 * The real Claude Code CLI (retries off, as in every suite here) when a translated vendor refuses a turn: it
 * must end the way Anthropic's own answer would make it end. OpenAI's `context_length_exceeded` reaches it as
 * Anthropic's `prompt is too long` (its `terminal_reason` is `prompt_too_long`, which is what starts its
 * compaction in an interactive session), a 429 as a 429, and Gemini's overloaded 503 as Anthropic's 529
 * `overloaded_error`, the status `--fallback-model` acts on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, startFakeOpenAiResponses, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

interface ErrorCase {
  name: string;
  refusal: FakeReply;
  expected: { terminal_reason: string; api_error_status: number; result: RegExp };
}

interface VendorCase {
  vendor: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  errors: ErrorCase[];
}

const VENDORS: VendorCase[] = [
  {
    vendor: 'OpenAI Responses',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-errors-0001" }`,
    errors: [
      {
        name: 'context_length_exceeded',
        refusal: reply.error(400, { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.' }),
        expected: { terminal_reason: 'prompt_too_long', api_error_status: 400, result: /^Prompt is too long/ },
      },
      {
        name: 'a rate limit',
        refusal: reply.error(429),
        expected: { terminal_reason: 'api_error', api_error_status: 429, result: /^API Error: Request rejected \(429\)/ },
      },
    ],
  },
  {
    vendor: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-errors-0001" }`,
    errors: [
      {
        name: 'an overloaded model',
        refusal: reply.error(503),
        expected: { terminal_reason: 'api_error', api_error_status: 529, result: /overloaded/i },
      },
    ],
  },
];

describe.each(VENDORS)('Claude Code refused by $vendor', ({ model, startUpstream, providerYaml, errors }) => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream, providerYaml });
  });
  afterAll(() => target?.close());

  it.each(errors)('$name ends the run as Anthropic would make it end', async ({ refusal, expected }) => {
    resetTarget(target);
    target.upstream.enqueue(refusal);
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model, variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    const context = describeRun(outcome, target);
    expect(outcome.exitCode, context).toBe(1);
    expect(outcome.result, context).toMatchObject({ is_error: true, terminal_reason: expected.terminal_reason, api_error_status: expected.api_error_status });
    expect(String(outcome.result?.result), context).toMatch(expected.result);
    expect(target.upstream.requests, context).toHaveLength(1);
    expect(target.proxy.escapes).toEqual([]);
  }, 90_000);
});
