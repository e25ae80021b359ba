/**
 * The real Claude Code CLI compacting on its own, mid-run, on OpenAI Responses. The CLI decides when the
 * context is full from the usage the gateway reports (`input_tokens` plus `cache_read_input_tokens`); OpenAI
 * counts cached tokens inside `input_tokens`, so the gateway must report the uncached part and the cached part
 * apart, adding up to what the vendor read. A turn that read 990,000 tokens (900,000 cached) fills the window
 * the CLI assumes for a model it does not know (1,000,000): it asks the model to summarise (its instruction in
 * the same user turn as the tool result, which Responses gets as a `function_call_output` and a user message),
 * then goes on from the summary, and the vendor never sees the earlier turns again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, probeWorkspace, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesStep } from './vendor-read-calls.ts';

const SUMMARY = 'The user asked for probe.txt, which was read.';
const ANSWER = 'The file was read.';

let target: ClaudeCodeTarget;
beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-compact-0001" }`,
  });
});
afterAll(() => target?.close());

// Responses JSON, read field by field in the assertions.
type Item = Record<string, any>;

it('compacts when the reported usage fills the window, cached tokens included, and goes on from the summary', async () => {
  resetTarget(target);
  const workspace = probeWorkspace();
  try {
    target.upstream.enqueue(
      responsesStep({ calls: [{ name: 'Read', input: { file_path: workspace.file }, id: 'call_CompactRead01' }], usage: { input: 990_000, cacheRead: 900_000, output: 30 } }),
      responsesStep({ text: `<analysis>One file read.</analysis>\n<summary>${SUMMARY}</summary>`, usage: { input: 3000, output: 40 } }),
      responsesStep({ text: ANSWER, usage: { input: 3000, output: 8 } }),
    );
    const outcome = await runAgainst(target, { prompt: `Read ${workspace.file}.`, model: 'openai/gpt-5-mini', variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, allowedTools: ['Read'], timeoutMs: 60_000 });
    expectAnswer(outcome, target, ANSWER);
    const context = describeRun(outcome, target);

    // The CLI counted the cached tokens the gateway reported apart, and compacted on its own.
    const boundary = outcome.events.find((event) => event.subtype === 'compact_boundary') as Item | undefined;
    expect(boundary?.compact_metadata, context).toMatchObject({ trigger: 'auto', pre_tokens: expect.any(Number) });
    expect(boundary?.compact_metadata.pre_tokens, context).toBeGreaterThanOrEqual(990_000);
    const [, summarising] = messageCalls(target, 3);
    const asked = (summarising?.body as { messages: Item[] }).messages.at(-1)?.content as Item[];
    expect(asked.map((block) => block.type), context).toEqual(['tool_result', 'text']);

    // Responses got the tool result as the call's output, then the instruction as a user message.
    const [, second, third] = target.upstream.requests.map((sent) => (sent.body as { input: Item[] }).input);
    expect(second?.slice(-3).map((item) => item.type ?? item.role), context).toEqual(['function_call', 'function_call_output', 'user']);
    expect(second?.at(-2)?.output, context).toContain(workspace.content);
    expect(second?.at(-1)?.content[0].text, context).toMatch(/summary/);
    // After the compaction the vendor gets the summary, not the earlier call.
    expect(JSON.stringify(third), context).toContain(SUMMARY);
    expect(third?.some((item) => item.type === 'function_call'), context).toBe(false);
  } finally {
    workspace.remove();
  }
}, 90_000);
