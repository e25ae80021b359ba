/**
 * The real Claude Code CLI on a translated model whose endpoint writes fewer tokens than the CLI asks for.
 * For a model it does not know, the CLI sends `max_tokens: 32000` on every turn; DeepSeek's `deepseek-chat`
 * (the built-in `deepseek/deepseek-v3.2`, catalog `max_output_tokens: 8192`) refuses anything above 8192
 * with a 400 (`Invalid max_tokens value, the valid range of max_tokens is [1, 8192]`), so every turn of the
 * CLI failed. The gateway lowers the limit to the endpoint's own; a `Read` round trip shows both turns so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, probeWorkspace, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const SHARED_KEY = 'sk-deepseek-shared-claude-code-0001';
const MODEL = 'deepseek/deepseek-v3.2';
// The catalog's output limit of the model's one endpoint (DeepSeek's documented maximum for deepseek-chat).
const ENDPOINT_OUTPUT_LIMIT = 8192;
const ANSWER = 'The file says the gateway carried it.';

let target: ClaudeCodeTarget;

beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  deepseek: { base_url: "${upstream.baseURL}", api_key: "${SHARED_KEY}" }`,
  });
  resetTarget(target);
});
afterAll(() => target?.close());

it('Claude Code on DeepSeek: the 32000 tokens the CLI asks for reach the upstream as the endpoint limit, 8192', async () => {
  const workspace = probeWorkspace();
  try {
    target.upstream.enqueue(
      openAiChatStep({ calls: [{ name: 'Read', input: { file_path: workspace.file }, id: 'call_ReadLimit0001' }], usage: { input: 900, output: 20 } }),
      openAiChatStep({ text: ANSWER, usage: { input: 950, output: 12 } }),
    );
    const prompt = `Read the file ${workspace.file} and tell me what it says.`;
    const outcome = await runAgainst(target, { prompt, model: MODEL, variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, allowedTools: ['Read'] });
    expectAnswer(outcome, target, ANSWER);

    const calls = messageCalls(target, 2);
    calls.forEach((call, turn) => {
      const asked = (call.body as { max_tokens: number }).max_tokens;
      expect(asked, 'the CLI asks more than the endpoint writes, or this test proves nothing').toBeGreaterThan(ENDPOINT_OUTPUT_LIMIT);
      const sent = (target.upstream.requests[turn] as RecordedRequest).body as { model: string; max_tokens?: number };
      expect(sent.model).toBe('deepseek-chat');
      expect(sent.max_tokens, describeRun(outcome, target)).toBe(ENDPOINT_OUTPUT_LIMIT);
    });
    const toolTurn = target.upstream.requests[1]?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(toolTurn.messages.at(-1))).toContain(workspace.content);
  } finally {
    workspace.remove();
  }
});
