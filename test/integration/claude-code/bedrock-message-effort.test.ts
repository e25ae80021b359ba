/**
 * The real Claude Code CLI with `--model sonnet` (`claude-sonnet-5-5`) and `--effort` on a gateway whose only
 * provider is Amazon Bedrock. On the 5.5 models the CLI puts Anthropic's per-message effort
 * (`output_config: {effort}`) on its mid-conversation `role: "system"` message. The gateway must answer the
 * CLI's first request 200 (before the fix it answered 400 naming `messages[1].output_config`, and the CLI
 * resent without it, losing the effort), and Bedrock Converse must receive the effort the CLI asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockStep, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const ANSWER = 'Hello from Bedrock.';

// Vendor and CLI JSON, read field by field in the assertions.
type Item = Record<string, any>;

let target: ClaudeCodeTarget;
beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", regional_base_urls: { us: "${upstream.url}" }, api_key: "bedrock-shared-msgeffort-0001" }`,
  });
});
afterAll(() => target?.close());

describe.each(['low', 'high'])('Claude Code with --model sonnet --effort %s on a Bedrock-only gateway', (effort) => {
  it('is answered 200 on its first request and Bedrock gets the effort', async () => {
    resetTarget(target);
    target.upstream.enqueue(bedrockStep({ text: ANSWER, usage: { input: 900, output: 8 } }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model: 'sonnet', extraArgs: ['--effort', effort], variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    expectAnswer(outcome, target, ANSWER);
    const context = describeRun(outcome, target);

    // One call, answered 200, one Converse call: no 400 and resend.
    const [call] = messageCalls(target, 1);
    const sentByCli = (call?.body as Item).messages.filter((message: Item) => message.role === 'system' && message.output_config);
    expect(sentByCli.map((message: Item) => message.output_config), context).toEqual([{ effort }]);

    const converse = target.upstream.requests[0]?.body as Item;
    // Claude on Bedrock takes Anthropic's own thinking and effort in `additionalModelRequestFields`.
    expect(converse.additionalModelRequestFields, context).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort } });
  }, 90_000);
});
