/**
 * The real Claude Code CLI handing work to a subagent (its `Agent` tool, in the foreground) on the Anthropic
 * passthrough, Gemini and OpenAI Chat Completions. The subagent's own conversation goes through the gateway on
 * the session's model, its answer reaches the main conversation as the tool's result, the CLI exits 0 with
 * the main answer, and every call leaves a generation record on that model. (In the background, the tool's
 * default, the main loop and the agent call concurrently, which a fake answering in order cannot script.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, geminiStep, openAiChatStep, startFakeAnthropic, startFakeGemini, startFakeOpenAiChat, type FakeReply, type FakeUpstream, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, recordedGenerations, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

interface VendorCase {
  name: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  step: (step: ScriptedStep) => FakeReply;
}

const VENDORS: VendorCase[] = [
  {
    name: 'Anthropic',
    model: 'anthropic/claude-sonnet-4.5',
    startUpstream: () => startFakeAnthropic(),
    providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-agent-0001" }`,
    step: anthropicStep,
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-agent-0001" }`,
    step: geminiStep,
  },
  {
    name: 'OpenAI Chat Completions',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-agent-0001" }`,
    step: openAiChatStep,
  },
];

const USAGE = { input: 2500, output: 15 };
const TASK = 'Count the files in the working directory and report the number.';
const FINDING = 'The subagent counted zero files.';

describe.each(VENDORS)('Claude Code subagent on $name', (vendor) => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: vendor.startUpstream, providerYaml: vendor.providerYaml });
  });
  afterAll(() => target?.close());

  it('runs its conversation on the same model, and its answer reaches the main one', async () => {
    resetTarget(target);
    const answer = `Main: ${FINDING}`;
    const call = { description: 'Count files', prompt: TASK, subagent_type: 'general-purpose', run_in_background: false };
    target.upstream.enqueue(vendor.step({ calls: [{ name: 'Agent', input: call }], usage: USAGE }), vendor.step({ text: FINDING, usage: USAGE }), vendor.step({ text: answer, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Delegate counting the files.', model: vendor.model, variable: 'ANTHROPIC_AUTH_TOKEN', allowedTools: ['Agent'], timeoutMs: 60_000 });
    expectAnswer(outcome, target, answer);
    const context = describeRun(outcome, target);

    const [, agentTurn, mainTurn] = messageCalls(target, 3).map((forwarded) => forwarded.body as { model: string; messages: Array<{ role: string; content: unknown }> });
    expect([agentTurn?.model, mainTurn?.model], context).toEqual([vendor.model, vendor.model]);
    // The subagent starts its own conversation from the task; the main one gets the finding back.
    expect(JSON.stringify(agentTurn?.messages)).toContain(TASK);
    expect(JSON.stringify(agentTurn?.messages)).not.toContain('Delegate counting the files.');
    expect(JSON.stringify(mainTurn?.messages)).toContain(FINDING);
    expect(target.upstream.requests[2]?.rawBody).toContain(FINDING);

    const recorded = await recordedGenerations(target, 3);
    expect(recorded.map((record) => [record.model, record.status, record.usage.input_tokens, record.usage.output_tokens])).toEqual(
      [0, 1, 2].map(() => [vendor.model, 'success', USAGE.input, USAGE.output]),
    );
  }, 90_000);
});
