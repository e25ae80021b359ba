/**
 * The real Claude Code CLI with the models it picks itself on a gateway whose only provider is Amazon Bedrock:
 * no `--model` (its default, `claude-opus-5-5`) and its `sonnet` and `haiku` aliases (`claude-sonnet-5-5`,
 * `claude-haiku-5-5`). The catalog must list Bedrock endpoints for the 5.5 generation, or the CLI's first turn
 * is a 404 there. Each turn reaches Bedrock Converse with the global cross-region inference profile the catalog
 * names and is recorded at that endpoint's (list) prices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockStep, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, recordedGenerations, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const ANSWER = 'Hello from Bedrock.';
const USAGE = { input: 900, output: 8 };

let target: ClaudeCodeTarget;
beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", regional_base_urls: { us: "${upstream.url}" }, api_key: "bedrock-shared-default-0001" }`,
  });
});
afterAll(() => target?.close());

describe.each([
  { flag: undefined, sent: 'claude-opus-5-5', slug: 'anthropic/claude-opus-5.5', profile: 'global.anthropic.claude-opus-5-5', price: { input: 4, output: 20 } },
  { flag: 'sonnet', sent: 'claude-sonnet-5-5', slug: 'anthropic/claude-sonnet-5.5', profile: 'global.anthropic.claude-sonnet-5-5', price: { input: 2, output: 10 } },
  { flag: 'haiku', sent: 'claude-haiku-5-5', slug: 'anthropic/claude-haiku-5.5', profile: 'global.anthropic.claude-haiku-5-5', price: { input: 0.1, output: 0.5 } },
])('Claude Code with --model $flag on a Bedrock-only gateway', ({ flag, sent, slug, profile, price }) => {
  it(`sends ${sent}, which the gateway serves from Bedrock's ${profile}`, async () => {
    resetTarget(target);
    const before = (await recordedGenerations(target, 0)).length;
    target.upstream.enqueue(bedrockStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', ...(flag ? { model: flag } : {}), variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    expectAnswer(outcome, target, ANSWER);
    // The CLI's mid-conversation `role: "system"` message carries a per-message effort (`output_config`), which
    // translated vendors take: one call, answered 200, with no refusal and resend.
    expect(target.proxy.forwarded.map((call) => [call.path, call.status]), describeRun(outcome, target)).toEqual([['/api/v1/messages?beta=true', 200]]);
    expect(target.proxy.forwarded.every((call) => (call.body as { model: string }).model === sent)).toBe(true);
    expect(target.upstream.requests.map((request) => request.params.modelId)).toEqual([profile]);

    const record = (await recordedGenerations(target, before + 1)).at(-1);
    expect([record?.requested_model, record?.model, record?.provider, record?.usage.input_tokens, record?.usage.output_tokens]).toEqual([sent, slug, 'bedrock', USAGE.input, USAGE.output]);
    expect(record?.cost).toBeCloseTo((USAGE.input * price.input + USAGE.output * price.output) / 1e6, 12);
  }, 90_000);
});
