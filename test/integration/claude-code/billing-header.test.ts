/**
 * Claude Code's billing header (`x-anthropic-billing-header: cc_version=…; cc_entrypoint=…;`, the first block
 * of its system prompt) with the real CLI: an OpenAI Chat Completions upstream and a Gemini one get the system
 * prompt without that block and otherwise intact, and an Anthropic upstream gets it byte for byte. A
 * count_tokens on the translated vendor counts what it is sent: the CLI's request counts the same with and
 * without the block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiStep, openAiChatStep, startFakeAnthropic, startFakeGemini, startFakeOpenAiChat, anthropicStep, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import type { ProxiedRequest } from '#test/helpers/claude-code/loopback-proxy.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const HEADER = 'x-anthropic-billing-header:';
const ANSWER = 'Hello there.';
const USAGE = { input: 900, output: 4 };

type TextBlock = { type: string; text: string; cache_control?: unknown };
// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

/** The CLI's one call: its system prompt, checked to open with the billing header. */
function cliSystem(outcome: Awaited<ReturnType<typeof runAgainst>>, target: ClaudeCodeTarget, answer = ANSWER): { call: ProxiedRequest; system: TextBlock[]; sent: RecordedRequest } {
  expectAnswer(outcome, target, answer);
  const [call] = messageCalls(target, 1) as [ProxiedRequest];
  const system = (call.body as { system: TextBlock[] }).system;
  expect(system[0]?.text, describeRun(outcome, target)).toMatch(/^x-anthropic-billing-header: cc_version=[^;\n]+; cc_entrypoint=[^;\n]+;/);
  expect(system.length).toBeGreaterThan(1);
  return { call, system, sent: target.upstream.requests[0] as RecordedRequest };
}

describe('Claude Code on OpenAI Chat Completions', () => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({
      startUpstream: () => startFakeOpenAiChat(),
      providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-billing-0001" }`,
    });
  });
  afterAll(() => target?.close());

  it('sends the system prompt without the billing header block, the rest intact', async () => {
    resetTarget(target);
    target.upstream.enqueue(openAiChatStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model: 'openai/gpt-5-mini', variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    const { system, sent } = cliSystem(outcome, target);
    const context = describeRun(outcome, target);
    expect(sent.rawBody, context).not.toContain(HEADER);
    const messages = (sent.body as Item).messages as Item[];
    // Each remaining system block is one `developer` message, in order, word for word; then the conversation.
    const leading = messages.slice(0, system.length - 1);
    expect(leading.map((message) => [message.role, message.content]), context).toEqual(system.slice(1).map((block) => ['developer', block.text]));
    expect(messages[system.length - 1]?.role, context).toBe('user');
  }, 90_000);

  it('counts the CLI request the same with and without the block', async () => {
    resetTarget(target);
    target.upstream.enqueue(openAiChatStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model: 'openai/gpt-5-mini', variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    const { call, system } = cliSystem(outcome, target);
    const { model, messages, tools } = call.body as Item;
    const count = async (blocks: TextBlock[]): Promise<number> => {
      const response = await fetch(`${target.gateway.origin}/api/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${target.gateway.api_key}` },
        body: JSON.stringify({ model, system: blocks, messages, tools }),
      });
      const body = (await response.json()) as { input_tokens: number };
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body.input_tokens;
    };
    const withHeader = await count(system);
    expect(withHeader).toBeGreaterThan(0);
    expect(withHeader).toBe(await count(system.slice(1)));
  }, 90_000);
});

describe('Claude Code on Gemini', () => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: startFakeGemini, providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-billing-0001" }` });
  });
  afterAll(() => target?.close());

  it('sends the system instruction without the billing header block, the rest intact', async () => {
    resetTarget(target);
    target.upstream.enqueue(geminiStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model: 'google/gemini-2.5-pro', variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    const { system, sent } = cliSystem(outcome, target);
    const context = describeRun(outcome, target);
    expect(sent.rawBody, context).not.toContain(HEADER);
    const parts = ((sent.body as Item).systemInstruction?.parts ?? []) as Item[];
    expect(parts.map((part) => part.text), context).toEqual(system.slice(1).map((block) => block.text));
  }, 90_000);
});

describe('Claude Code on an Anthropic upstream', () => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({
      startUpstream: () => startFakeAnthropic(),
      providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-billing-0001" }`,
    });
  });
  afterAll(() => target?.close());

  it('passes the billing header block through byte for byte', async () => {
    resetTarget(target);
    target.upstream.enqueue(anthropicStep({ text: ANSWER, usage: USAGE }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', model: 'claude-sonnet-4-5-20250929', variable: 'ANTHROPIC_AUTH_TOKEN', timeoutMs: 60_000 });
    const { call, system, sent } = cliSystem(outcome, target);
    // The block's bytes as the CLI wrote them, found unchanged in what the upstream received.
    const start = call.rawBody.indexOf(`"${HEADER}`);
    const end = call.rawBody.indexOf('"', start + 1);
    expect(start).toBeGreaterThan(-1);
    const bytes = call.rawBody.slice(start, end + 1);
    expect(JSON.parse(bytes)).toBe(system[0]?.text);
    expect(sent.rawBody, describeRun(outcome, target)).toContain(bytes);
    expect((sent.body as { system: TextBlock[] }).system).toEqual(system);
  }, 90_000);
});
