/**
 * The real Claude Code CLI continuing one session over several processes (the same home and working
 * directory), each on another vendor family behind one gateway: Gemini reasons and reads a file, then
 * `--continue` on the Anthropic passthrough, `--resume <session id>` on OpenAI Responses, `/compact` in print
 * mode on Gemini, and `--continue` after the compaction on Bedrock. Every process must exit 0 with its answer;
 * each vendor must get the earlier turns in its own format and nothing another vendor made that it would
 * refuse (Gemini's reasoning, enveloped as `sbsig1_…`, never reaches Anthropic or OpenAI; this CLI version
 * already leaves it out when the model changes); each call leaves a generation record naming the model that
 * served it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicStep, bedrockStep, geminiStep, reply, startFakeAnthropic, startFakeBedrock, startFakeGemini, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway } from '#test/helpers/start-gateway.ts';
import { startLoopbackProxy } from '#test/helpers/claude-code/loopback-proxy.ts';
import { expectAnswer, probeWorkspace, recordedGenerations, runAgainst, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesText } from './vendor-read-calls.ts';

const THOUGHT = 'I should read the file first.';
// Gemini's opaque signature on the call (the recording's prefix).
const SIGNATURE = 'EpEgCo4gAb4+9vvWwdN+NkNiCCwrqvFI8uf9IiD2A47Bm4Sga0kUTm4e';
const SUMMARY = 'The user had Gemini read probe.txt, then Anthropic and OpenAI continued.';
const USAGE = { input: 3000, output: 20 };

// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

let upstreams: { anthropic: FakeUpstream; gemini: FakeUpstream; openai: FakeUpstream; bedrock: FakeUpstream };
// One gateway for all four; `upstream` is unused by the helpers called here (they take the gateway and proxy).
let target: ClaudeCodeTarget;
let home: string;

beforeAll(async () => {
  const [anthropic, gemini, openai, bedrock] = await Promise.all([startFakeAnthropic(), startFakeGemini(), startFakeOpenAiResponses(), startFakeBedrock()]);
  upstreams = { anthropic, gemini, openai, bedrock };
  const gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-shared-continue-0001" }`,
      `  google: { base_url: "${gemini.baseURL}", api_key: "gemini-shared-continue-0001" }`,
      `  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-shared-continue-0001" }`,
      `  bedrock: { base_url: "${bedrock.url}", api_key: "bedrock-shared-continue-0001" }`,
      '',
    ].join('\n'),
  });
  const proxy = await startLoopbackProxy({ allowedOrigin: gateway.origin });
  target = {
    upstream: anthropic,
    gateway,
    proxy,
    async close() {
      await proxy.close();
      await gateway.close();
      await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
    },
  };
  home = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-home-'));
});
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await target?.close();
});

/** A Gemini stream: a thought, then a `Read` call on `file` carrying the thought's signature. */
function geminiThinkThenRead(file: string) {
  const base = { modelVersion: 'gemini-2.5-pro', responseId: 'ContinueRead01' };
  return reply.events([
    { candidates: [{ content: { parts: [{ text: THOUGHT, thought: true }], role: 'model' }, index: 0 }], ...base },
    { candidates: [{ content: { parts: [{ functionCall: { name: 'Read', args: { file_path: file } }, thoughtSignature: SIGNATURE }], role: 'model' }, index: 0 }], ...base },
    { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3000, candidatesTokenCount: 12, totalTokenCount: 3040, thoughtsTokenCount: 28 }, ...base },
  ]);
}

function texts(value: unknown): string {
  return JSON.stringify(value);
}

it('continues one session over five processes on four vendor families', async () => {
  const workspace = probeWorkspace();
  const { anthropic, gemini, openai, bedrock } = upstreams;
  const run = (prompt: string, model: string, extraArgs: string[] = [], allowedTools: string[] = []) => {
    target.proxy.clear();
    return runAgainst(target, { prompt, model, variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, home, allowedTools, extraArgs, timeoutMs: 60_000 });
  };
  try {
    // 1. Gemini thinks, reads the file and answers.
    gemini.enqueue(geminiThinkThenRead(workspace.file), geminiStep({ text: 'Gemini read the probe.', usage: USAGE }));
    const first = await run(`Read ${workspace.file}.`, 'google/gemini-2.5-pro', [], ['Read']);
    expectAnswer(first, target, 'Gemini read the probe.');
    const sessionId = String(first.result?.session_id);
    expect(target.proxy.forwarded).toHaveLength(2);

    // 2. --continue on the Anthropic passthrough: the history as the CLI kept it (the CLI itself leaves out the
    // thinking another model made), Gemini's call and its result under the id the gateway gave the call.
    anthropic.enqueue(anthropicStep({ text: 'Anthropic continues.', usage: USAGE }));
    expectAnswer(await run('Go on.', 'anthropic/claude-sonnet-4.5', ['--continue']), target, 'Anthropic continues.');
    const toAnthropic = anthropic.requests[0]?.body as Item;
    expect(anthropic.requests[0]?.rawBody).not.toContain('sbsig1_');
    expect(toAnthropic.messages.map((message: Item) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(toAnthropic.messages[1].content.map((block: Item) => block.type)).toEqual(['tool_use']);
    expect(texts(toAnthropic.messages[2])).toContain(workspace.content);
    expect(texts(toAnthropic.messages[3])).toContain('Gemini read the probe.');

    // 3. --resume <id> on OpenAI Responses: the call and its output as items, Anthropic's answer as a message.
    openai.enqueue(responsesText('OpenAI continues.'));
    expectAnswer(await run('And now?', 'openai/gpt-5-mini', ['--resume', sessionId]), target, 'OpenAI continues.');
    const toOpenAi = openai.requests[0]?.body as Item;
    expect(openai.requests[0]?.rawBody).not.toContain('sbsig1_');
    expect((toOpenAi.input as Item[]).filter((item) => item.type !== undefined).map((item) => item.type)).toEqual(['function_call', 'function_call_output']);
    expect(texts(toOpenAi.input)).toContain('Anthropic continues.');

    // 4. /compact in print mode on Gemini: one summarising call (the CLI asks again for an answer without the
    // <summary> tags it asked for), its summary kept as the session's start.
    gemini.enqueue(geminiStep({ text: `<analysis>Three vendors so far.</analysis>\n<summary>${SUMMARY}</summary>`, usage: USAGE }));
    const compacted = await run('/compact', 'google/gemini-2.5-pro', ['--continue']);
    expect(compacted.exitCode, texts(compacted.result)).toBe(0);
    expect(compacted.result).toMatchObject({ subtype: 'success', is_error: false });
    expect(gemini.requests).toHaveLength(3);
    expect(texts(gemini.requests[2]?.body)).toContain('OpenAI continues.');

    // 5. --continue on Bedrock after the compaction: the summary opens the conversation. Claude Sonnet 4.5 is
    // served by Anthropic and Bedrock at one price, so the gateway's default spread may try either first (here
    // and in step 2; the fake with nothing queued answers an error and the other serves): the last request
    // Bedrock received is this step's.
    bedrock.enqueue(bedrockStep({ text: 'Bedrock continues.', usage: USAGE }));
    expectAnswer(await run('Still there?', 'claude-sonnet-4-5-20250929', ['--continue']), target, 'Bedrock continues.');
    const toBedrock = bedrock.requests.at(-1)?.body as Item;
    expect(texts(toBedrock.messages)).toContain(SUMMARY);
    expect(texts(toBedrock.messages)).not.toContain('Gemini read the probe.');

    const records = await recordedGenerations(target, 6);
    expect(records.map((record) => [record.requested_model, record.model, record.status])).toEqual([
      ['google/gemini-2.5-pro', 'google/gemini-2.5-pro', 'success'],
      ['google/gemini-2.5-pro', 'google/gemini-2.5-pro', 'success'],
      ['anthropic/claude-sonnet-4.5', 'anthropic/claude-sonnet-4.5', 'success'],
      ['openai/gpt-5-mini', 'openai/gpt-5-mini', 'success'],
      ['google/gemini-2.5-pro', 'google/gemini-2.5-pro', 'success'],
      ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4.5', 'success'],
    ]);
    expect(records.every((record) => record.cost > 0)).toBe(true);
  } finally {
    workspace.remove();
  }
}, 240_000);
