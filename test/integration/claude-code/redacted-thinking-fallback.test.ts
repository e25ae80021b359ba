/**
 * The real Claude Code CLI on a Claude model served by Amazon Bedrock and Anthropic, when a turn moves from
 * one to the other. Bedrock's redacted reasoning reaches the CLI as a `redacted_thinking` block whose `data`
 * is the gateway's envelope (`sbsig1_…`) around Bedrock's bytes; the CLI hands it back on the next turn. When
 * that turn fails over to Anthropic (Bedrock answers 500), the envelope is another vendor's and Anthropic
 * refuses it as invalid (a 400, which ends the plan): it must be left out, as foreign `thinking` blocks are.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startLoopbackProxy, type LoopbackProxy } from '#test/helpers/claude-code/loopback-proxy.ts';
import { runClaudeCode } from '#test/helpers/claude-code/run-claude-code.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { probeWorkspace } from './claude-code-support.ts';

const MODEL = 'test/claude';
const ANSWER = 'Anthropic finished the task.';
// Bedrock's redacted reasoning: opaque base64 bytes only Bedrock can read back.
const REDACTED = 'UkVEQUNURUQtYmVkcm9jay1yZWFzb25pbmc=';

let bedrock: FakeUpstream;
let anthropic: FakeUpstream;
let gateway: TestGateway;
let proxy: LoopbackProxy;

beforeAll(async () => {
  [bedrock, anthropic] = await Promise.all([startFakeBedrock(), startFakeAnthropic()]);
  // Bedrock is the far cheaper endpoint, so it serves the first turn and holds the session's pin.
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [`  bedrock: { base_url: "${bedrock.url}", api_key: "bedrock-shared-0002" }`, `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-shared-0003" }`],
      [modelYaml(MODEL, [{ provider: 'bedrock', model: 'anthropic.claude-sonnet-4-5-v1:0', price: [1, 2] }, { provider: 'anthropic', model: 'claude-sonnet-4-5', price: [1000, 2000] }])],
    ),
  });
  proxy = await startLoopbackProxy({ allowedOrigin: gateway.origin });
});
afterAll(async () => {
  await proxy?.close();
  await gateway?.close();
  await bedrock?.close();
  await anthropic?.close();
});

/** A Converse stream: redacted reasoning, then a call of the CLI's `Read` tool. */
function redactedReasoningThenRead(file: string) {
  const usage = { inputTokens: 900, outputTokens: 40, totalTokens: 940 };
  return reply.events([
    { messageStart: { role: 'assistant' } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: REDACTED } } } },
    { contentBlockStop: { contentBlockIndex: 0 } },
    { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_RedactedRead01', name: 'Read' } } } },
    { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: JSON.stringify({ file_path: file }) } } } },
    { contentBlockStop: { contentBlockIndex: 1 } },
    { messageStop: { stopReason: 'tool_use' } },
    { metadata: { usage, metrics: { latencyMs: 90 } } },
  ]);
}

it('a turn failing over from Bedrock to Anthropic leaves out the redacted reasoning Bedrock made', async () => {
  const workspace = probeWorkspace();
  try {
    bedrock.enqueue(redactedReasoningThenRead(workspace.file), reply.error(500));
    anthropic.enqueue(anthropicStep({ text: ANSWER, usage: { input: 950, output: 9 } }));
    const outcome = await runClaudeCode({
      prompt: `Read the file ${workspace.file} and tell me what it says.`,
      model: MODEL,
      gatewayOrigin: gateway.origin,
      key: { variable: 'ANTHROPIC_AUTH_TOKEN', value: gateway.api_key },
      proxyUrl: proxy.url,
      cwd: workspace.cwd,
      allowedTools: ['Read'],
    });
    const context = `${outcome.stderr}\n${outcome.stdout.slice(-1500)}\n${gateway.logs.slice(-10).join('\n')}`;
    expect(outcome.result, context).toMatchObject({ subtype: 'success', is_error: false, result: ANSWER });
    expect(proxy.escapes).toEqual([]);
    expect(bedrock.requests).toHaveLength(2);
    expect(anthropic.requests).toHaveLength(1);

    // The CLI handed the redacted block back as it got it...
    const cliTurn = proxy.forwarded[1]?.body as { messages: Array<{ role: string; content: unknown }> };
    const handedBack = JSON.stringify(cliTurn.messages.filter((message) => message.role === 'assistant'));
    expect(handedBack, context).toContain('"type":"redacted_thinking"');
    expect(handedBack).toContain('"data":"sbsig1_');
    // ...and Anthropic got the conversation without it: the tool call and its result, and nothing of Bedrock's.
    const sent = anthropic.requests[0]?.body as { messages: Array<{ role: string; content: Array<{ type: string }> | string }> };
    const assistant = sent.messages.filter((message) => message.role === 'assistant');
    expect(assistant.map((message) => (typeof message.content === 'string' ? ['text'] : message.content.map((block) => block.type)))).toEqual([['tool_use']]);
    expect(anthropic.requests[0]?.rawBody).not.toContain('sbsig1_');
    expect(JSON.stringify(sent.messages.at(-1))).toContain(workspace.content);
  } finally {
    workspace.remove();
  }
});
