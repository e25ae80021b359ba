/**
 * The real Claude Code CLI on Claude served by Amazon Bedrock Converse with a thinking budget
 * (`MAX_THINKING_TOKENS`), asked for by the Anthropic model id the CLI knows and by the gateway slug, in a
 * `Read` round trip. The CLI asks for `thinking: {type: "enabled", budget_tokens: 4096}`; Bedrock must get
 * the same budget in `additionalModelRequestFields.thinking` and the same total output limit; its reasoning
 * reaches the CLI as a `thinking` block (the signature in the gateway's envelope), and the second turn hands
 * Bedrock its own `reasoningText` and signature back before the `toolUse`, as Claude on Bedrock requires within
 * a tool-using turn. Both turns are recorded on `anthropic/claude-sonnet-4.5` with Bedrock's token counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockStep, reply, startFakeBedrock, type FakeReply } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, probeWorkspace, recordedGenerations, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const BUDGET = 4096;
const THOUGHT = 'I should read the file before answering.';
// Claude's signature as Bedrock streams it (the recording amazon-bedrock-reasoning's prefix).
const SIGNATURE = 'Ep0CCkgICxABGAIqQOWPB6/PmA5SW9jC6FvaNq3E+U9ev4FMWcFWuAho+VGLCtazKc5WDjQ5i0MuxsY0o5pKDSVWVKii8KJDusXH4eASDK7jyzuk8iij7fJNihoMxHO9haYzt48R36HVIjCb';
const ANSWER = 'The file says the gateway carried it.';

// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

/** A Converse stream in the shape of the recording `amazon-bedrock-reasoning`: reasoning, its signature, then a `Read` call. */
function reasonThenRead(file: string): FakeReply {
  return reply.events([
    { messageStart: { role: 'assistant' } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: THOUGHT.slice(0, 14) } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: THOUGHT.slice(14) } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: SIGNATURE } } } },
    { contentBlockStop: { contentBlockIndex: 0 } },
    { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_ThinkRead01', name: 'Read' } } } },
    { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: JSON.stringify({ file_path: file }) } } } },
    { contentBlockStop: { contentBlockIndex: 1 } },
    { messageStop: { stopReason: 'tool_use' } },
    { metadata: { usage: { inputTokens: 3000, outputTokens: 40, totalTokens: 3040 }, metrics: { latencyMs: 90 } } },
  ]);
}

let target: ClaudeCodeTarget;
beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", api_key: "bedrock-shared-think-0001" }`,
  });
});
afterAll(() => target?.close());

describe.each(['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4.5'])('Claude Code with MAX_THINKING_TOKENS on Bedrock, --model %s', (model) => {
  it('sends the budget, shows the reasoning and hands Bedrock its own reasoning back', async () => {
    resetTarget(target);
    const before = (await recordedGenerations(target, 0)).length;
    const workspace = probeWorkspace();
    try {
      target.upstream.enqueue(reasonThenRead(workspace.file), bedrockStep({ text: ANSWER, usage: { input: 3100, output: 10 } }));
      const outcome = await runAgainst(target, {
        prompt: `Read the file ${workspace.file} and tell me what it says.`,
        model,
        variable: 'ANTHROPIC_AUTH_TOKEN',
        cwd: workspace.cwd,
        allowedTools: ['Read'],
        extraEnv: { MAX_THINKING_TOKENS: String(BUDGET) },
        timeoutMs: 60_000,
      });
      expectAnswer(outcome, target, ANSWER);
      const context = describeRun(outcome, target);

      const [first, second] = messageCalls(target, 2).map((call) => call.body as Item);
      expect(first?.thinking, context).toMatchObject({ type: 'enabled', budget_tokens: BUDGET });
      const sent = target.upstream.requests.map((request) => request.body as Item);
      for (const [turn, body] of sent.entries()) {
        expect(body.additionalModelRequestFields?.thinking, `turn ${turn + 1}`).toEqual({ type: 'enabled', budget_tokens: BUDGET });
        // Anthropic's max_tokens counts the budget; so does Bedrock's maxTokens for Claude.
        expect(body.inferenceConfig?.maxTokens, `turn ${turn + 1}`).toBe(first?.max_tokens);
      }

      const shown = outcome.events.flatMap((event) => (event.type === 'assistant' ? ((event.message as { content: Item[] }).content ?? []) : []));
      const thinking = shown.find((block) => block.type === 'thinking');
      expect(thinking, context).toMatchObject({ thinking: THOUGHT, signature: expect.stringMatching(/^sbsig1_/) });
      const handedBack = (second?.messages as Item[]).find((message) => message.role === 'assistant');
      expect(handedBack?.content.map((block: Item) => block.type)).toEqual(['thinking', 'tool_use']);

      const replayed = (sent[1]?.messages as Item[]).find((message) => message.role === 'assistant');
      expect(replayed?.content).toEqual([
        { reasoningContent: { reasoningText: { text: THOUGHT, signature: SIGNATURE } } },
        { toolUse: { toolUseId: 'tooluse_ThinkRead01', name: 'Read', input: { file_path: workspace.file } } },
      ]);

      const records = (await recordedGenerations(target, before + 2)).slice(before);
      expect(records.map((record) => [record.requested_model, record.model, record.stop_reason, record.usage.input_tokens, record.usage.output_tokens])).toEqual([
        [model, 'anthropic/claude-sonnet-4.5', 'tool_use', 3000, 40],
        [model, 'anthropic/claude-sonnet-4.5', 'end_turn', 3100, 10],
      ]);
    } finally {
      workspace.remove();
    }
  }, 90_000);
});
