/**
 * Options of the real Claude Code CLI (the pinned devDependency, run headless) that change what it sends or
 * reads, through the gateway to an Anthropic-format upstream (passthrough) and to OpenAI Chat Completions
 * (translation): `--append-system-prompt` (its text ends the system prompt each vendor gets), `--json-schema`
 * (the CLI's StructuredOutput tool, whose call becomes the run's `structured_output`), a tool the CLI does
 * not permit in print mode (its denial goes back to the model as an error result, and the run reports it), an
 * image sent as a content block on stdin (`--input-format stream-json`, as an SDK host does), and
 * `--include-partial-messages` (the CLI prints the gateway's translated stream events as it reads them).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, startFakeAnthropic, startFakeOpenAiChat, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import type { ProxiedRequest } from '#test/helpers/claude-code/loopback-proxy.ts';
import { expectAnswer, expectCompleted, messageCalls, probeWorkspace, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { tinyPng } from './vendor-read-calls.ts';

const CLAUDE = 'claude-sonnet-4-5-20250929';
const GPT = 'openai/gpt-5-mini';
const USAGE = { input: 2900, output: 12 };
const APPENDED = 'APPENDED-7Q2: answer in French.';
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

type Block = { type: string; text?: string; source?: { type: string; media_type?: string; data?: string }; image_url?: { url: string } };
interface AnthropicBody {
  system: Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
  tools: Array<{ name: string; input_schema: unknown }>;
}
interface ChatBody {
  messages: Array<{ role: string; content: string | Block[] | null; tool_call_id?: string }>;
  tools: Array<{ type: string; function: { name: string; parameters: unknown } }>;
}

let anthropic: ClaudeCodeTarget;
let openai: ClaudeCodeTarget;

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([
    startClaudeCodeTarget({
      startUpstream: () => startFakeAnthropic({ countTokens: 100 }),
      providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-cli-options-0001" }`,
    }),
    startClaudeCodeTarget({
      startUpstream: () => startFakeOpenAiChat(),
      providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-cli-options-0001" }`,
    }),
  ]);
});
afterAll(async () => {
  await anthropic?.close();
  await openai?.close();
});
beforeEach(() => {
  resetTarget(anthropic);
  resetTarget(openai);
});

const received = (target: ClaudeCodeTarget, index: number) => (target.upstream.requests[index] as RecordedRequest).body;
const textOf = (content: string | Block[] | null | undefined) => (typeof content === 'string' ? content : (content ?? []).map((block) => block.text ?? '').join(''));

describe('--append-system-prompt', () => {
  it('ends the system prompt the Anthropic upstream gets, as the CLI sent it', async () => {
    anthropic.upstream.enqueue(anthropicStep({ text: 'Bonjour.', usage: USAGE }));
    const outcome = await runAgainst(anthropic, { variable: 'ANTHROPIC_AUTH_TOKEN', prompt: 'Say hello.', model: CLAUDE, extraArgs: ['--append-system-prompt', APPENDED] });
    expectAnswer(outcome, anthropic, 'Bonjour.');
    const [call] = messageCalls(anthropic, 1) as [ProxiedRequest];
    const cli = call.body as AnthropicBody;
    expect(cli.system.at(-1)?.text?.endsWith(APPENDED)).toBe(true);
    expect((received(anthropic, 0) as AnthropicBody).system).toEqual(cli.system);
  });

  it('ends the last developer message of the system prompt OpenAI gets', async () => {
    openai.upstream.enqueue(openAiChatStep({ text: 'Bonjour.', usage: USAGE }));
    const outcome = await runAgainst(openai, { variable: 'ANTHROPIC_API_KEY', prompt: 'Say hello.', model: GPT, extraArgs: ['--append-system-prompt', APPENDED] });
    expectAnswer(outcome, openai, 'Bonjour.');
    messageCalls(openai, 1);
    const chat = received(openai, 0) as ChatBody;
    const leading = chat.messages.slice(0, chat.messages.findIndex((message) => message.role === 'user'));
    expect(leading.every((message) => message.role === 'developer')).toBe(true);
    expect(textOf(leading.at(-1)?.content).endsWith(APPENDED)).toBe(true);
    expect(chat.messages.filter((message) => textOf(message.content).includes(APPENDED))).toHaveLength(1);
  });
});

describe('--json-schema', () => {
  it.each([
    ['Anthropic', () => anthropic, CLAUDE, () => anthropicStep({ calls: [{ name: 'StructuredOutput', input: { city: 'Paris' } }], usage: USAGE })],
    ['OpenAI Chat', () => openai, GPT, () => openAiChatStep({ calls: [{ name: 'StructuredOutput', input: { city: 'Paris' }, id: 'call_Structured01' }], usage: USAGE })],
  ] as const)('on %s: the StructuredOutput call is the run’s structured_output', async (_vendor, targetOf, model, step) => {
    const target = targetOf();
    target.upstream.enqueue(step());
    const outcome = await runAgainst(target, { variable: 'ANTHROPIC_AUTH_TOKEN', prompt: 'Name a city.', model, extraArgs: ['--json-schema', JSON.stringify(SCHEMA)] });
    expect(expectCompleted(outcome, target)).toBe('{"city":"Paris"}');
    expect(outcome.result?.structured_output).toEqual({ city: 'Paris' });
    const [call] = messageCalls(target, 1) as [ProxiedRequest];
    const offered = (call.body as AnthropicBody).tools.find((tool) => tool.name === 'StructuredOutput');
    expect(offered?.input_schema).toEqual(SCHEMA);
    if (target === openai) expect((received(target, 0) as ChatBody).tools.find((tool) => tool.function.name === 'StructuredOutput')?.function.parameters).toEqual(SCHEMA);
    else expect((received(target, 0) as AnthropicBody).tools).toEqual((call.body as AnthropicBody).tools);
  });
});

describe('a tool the CLI does not permit in print mode', () => {
  it('on OpenAI Chat: the denial reaches the model as the tool message, the run reports it, no file is written', async () => {
    const workspace = probeWorkspace();
    try {
      const file = join(workspace.cwd, 'out.txt');
      openai.upstream.enqueue(openAiChatStep({ calls: [{ name: 'Write', input: { file_path: file, content: 'hello' }, id: 'call_Write01' }], usage: USAGE }));
      openai.upstream.enqueue(openAiChatStep({ text: 'I was not allowed to write it.', usage: USAGE }));
      const outcome = await runAgainst(openai, { variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, prompt: 'Write hello to out.txt.', model: GPT });
      expectAnswer(outcome, openai, 'I was not allowed to write it.');
      expect(outcome.result?.permission_denials).toEqual([{ tool_name: 'Write', tool_use_id: 'call_Write01', tool_input: { file_path: file, content: 'hello' } }]);
      expect(existsSync(file)).toBe(false);

      const [, second] = messageCalls(openai, 2) as [ProxiedRequest, ProxiedRequest];
      const cliResult = (second.body as AnthropicBody).messages.at(-1)?.content as Array<Block & { is_error?: boolean; content?: string }>;
      expect(cliResult[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_Write01', is_error: true });
      const denial = String(cliResult[0]?.content);
      expect(denial).toContain("haven't granted it");
      const toolMessage = (received(openai, 1) as ChatBody).messages.find((message) => message.role === 'tool');
      expect(toolMessage?.tool_call_id).toBe('call_Write01');
      expect(textOf(toolMessage?.content)).toContain(denial);
    } finally {
      workspace.remove();
    }
  });
});

describe('an image sent on stdin with --input-format stream-json', () => {
  const png = tinyPng().toString('base64');
  const input = [{ type: 'user', message: { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }, { type: 'text', text: 'What is this?' }] } }];

  it('reaches the Anthropic upstream as the CLI sent it', async () => {
    anthropic.upstream.enqueue(anthropicStep({ text: 'A gradient.', usage: USAGE }));
    const outcome = await runAgainst(anthropic, { variable: 'ANTHROPIC_AUTH_TOKEN', prompt: '', input, model: CLAUDE });
    expectAnswer(outcome, anthropic, 'A gradient.');
    const [call] = messageCalls(anthropic, 1) as [ProxiedRequest];
    const images = (body: AnthropicBody) => body.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((block) => block.type === 'image');
    expect(images(call.body as AnthropicBody)).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }]);
    expect(images(received(anthropic, 0) as AnthropicBody)).toEqual(images(call.body as AnthropicBody));
  });

  it('reaches OpenAI Chat as an image_url data URL in the user message', async () => {
    openai.upstream.enqueue(openAiChatStep({ text: 'A gradient.', usage: USAGE }));
    const outcome = await runAgainst(openai, { variable: 'ANTHROPIC_AUTH_TOKEN', prompt: '', input, model: GPT });
    expectAnswer(outcome, openai, 'A gradient.');
    messageCalls(openai, 1);
    const user = (received(openai, 0) as ChatBody).messages.find((message) => message.role === 'user');
    const parts = Array.isArray(user?.content) ? user.content : [];
    expect(parts.filter((part) => part.type === 'image_url')).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }]);
    expect(textOf(parts)).toContain('What is this?');
  });
});

describe('--include-partial-messages', () => {
  it('on OpenAI Chat: the CLI prints the translated stream, event by event, a tool call among it', async () => {
    const workspace = probeWorkspace();
    try {
      openai.upstream.enqueue(openAiChatStep({ text: 'Reading it.', calls: [{ name: 'Read', input: { file_path: workspace.file }, id: 'call_Read01' }], usage: USAGE }));
      openai.upstream.enqueue(openAiChatStep({ text: 'It says hello.', usage: USAGE }));
      const outcome = await runAgainst(openai, { variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, prompt: 'Read probe.txt.', model: GPT, allowedTools: ['Read'], extraArgs: ['--include-partial-messages'] });
      expectAnswer(outcome, openai, 'It says hello.');
      messageCalls(openai, 2);
      const events = outcome.events.filter((line) => line.type === 'stream_event').map((line) => line.event as { type: string; index?: number; content_block?: { type: string; name?: string }; delta?: { type: string; stop_reason?: string } });
      const first = events.slice(0, events.findIndex((event) => event.type === 'message_stop') + 1);
      expect(first.map((event) => event.type)).toEqual([
        'message_start',
        'content_block_start',
        ...first.filter((event) => event.delta?.type === 'text_delta').map(() => 'content_block_delta'),
        'content_block_stop',
        'content_block_start',
        ...first.filter((event) => event.delta?.type === 'input_json_delta').map(() => 'content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      expect(first.filter((event) => event.type === 'content_block_start').map((event) => [event.index, event.content_block?.type, event.content_block?.name])).toEqual([
        [0, 'text', undefined],
        [1, 'tool_use', 'Read'],
      ]);
      expect(first.find((event) => event.type === 'message_delta')?.delta?.stop_reason).toBe('tool_use');
      // The tool ran on what the stream carried: the file's text went back in the second turn.
      expect(textOf((received(openai, 1) as ChatBody).messages.find((message) => message.role === 'tool')?.content)).toContain(workspace.content);
    } finally {
      workspace.remove();
    }
  });
});
