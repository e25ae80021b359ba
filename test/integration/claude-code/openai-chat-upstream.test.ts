/**
 * The real Claude Code CLI (the pinned devDependency, run headless) through the gateway's translator to an
 * OpenAI Chat Completions upstream (`openai/gpt-5-mini` on the `openai` provider set to `family: openai-chat`),
 * with the key as `ANTHROPIC_AUTH_TOKEN` and as `ANTHROPIC_API_KEY`: the recorded answer is printed, and in a
 * `Read` round trip the file's content reaches the upstream as a `tool` message. Each turn the upstream
 * receives is checked against what the CLI sent (recorded by the loopback proxy): system text as `developer`
 * messages at the CLI's positions, tools as functions, nothing Anthropic-only, the provider key only.
 * `/context` makes the CLI count tokens, which the gateway estimates itself for a translated vendor.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, reply, startFakeOpenAiChat, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import type { ProxiedRequest } from '#test/helpers/claude-code/loopback-proxy.ts';
import {
  KEY_VARIABLES,
  countTokensCalls,
  expectAnswer,
  expectCompleted,
  expectCallerKeyHeader,
  expectCallerKeyWithheld,
  messageCalls,
  openAiReadCall,
  probeWorkspace,
  resetTarget,
  runAgainst,
  startClaudeCodeTarget,
  type ClaudeCodeTarget,
} from './claude-code-support.ts';

const SHARED_KEY = 'sk-openai-shared-claude-code-0001';
const MODEL = 'openai/gpt-5-mini';
const CALL_ID = 'call_ReadProbe0001';
const RECORDED_ANSWER = readChunks<{ choices: Array<{ delta: { content?: string | null } }> }>('openai-chat', 'openai-text')
  .map((chunk) => chunk.choices[0]?.delta.content ?? '')
  .join('');

let target: ClaudeCodeTarget;

beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "${SHARED_KEY}" }`,
  });
});
afterAll(() => target?.close());
beforeEach(() => resetTarget(target));

type TextBlock = { type: string; text?: string };
interface ClaudeCodeBody {
  system: TextBlock[];
  messages: Array<{ role: string; content: string | TextBlock[] }>;
  tools: Array<{ name: string; description: string; input_schema: unknown }>;
  output_config?: { effort?: string };
  metadata: { user_id: string };
}
interface ChatMessage {
  role: string;
  content: string | null | TextBlock[];
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}
interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>;
  reasoning_effort?: string;
  safety_identifier?: string;
  stream: boolean;
}

// What a Chat Completions request of this translator may hold, level by level: anything else (cache_control,
// defer_loading, thinking, context_management, metadata, output_config, betas...) would be Anthropic's leaking.
const CHAT_FIELDS = ['model', 'messages', 'tools', 'tool_choice', 'stream', 'stream_options', 'max_completion_tokens', 'reasoning_effort', 'safety_identifier'];
const MESSAGE_FIELDS = ['role', 'content', 'tool_calls', 'tool_call_id'];
const PART_FIELDS = ['type', 'text'];

function textOf(content: string | TextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text ?? '').join('');
}

/** One turn as the OpenAI upstream got it, checked against the Anthropic body the CLI sent for it. */
function expectChatTurn(call: ProxiedRequest, sent: RecordedRequest, callerKey: string): { cli: ClaudeCodeBody; chat: ChatBody } {
  const cli = call.body as ClaudeCodeBody;
  const chat = sent.body as ChatBody;
  expect(sent.path).toBe('/v1/chat/completions');
  expect(sent.headers.authorization).toBe(`Bearer ${SHARED_KEY}`);
  expect(sent.headers['x-api-key']).toBeUndefined();
  expect(Object.keys(sent.headers).filter((name) => name.startsWith('anthropic-'))).toEqual([]);
  expectCallerKeyWithheld(sent, callerKey);

  expect(chat.model).toBe('gpt-5-mini');
  expect(chat.stream).toBe(true);
  // The CLI asks for `effort: high` for a model it does not know; a reasoning model gets it as reasoning_effort.
  expect(cli.output_config?.effort).toBe('high');
  expect(chat.reasoning_effort).toBe('high');
  expect(Object.keys(chat).filter((field) => !CHAT_FIELDS.includes(field))).toEqual([]);
  // The CLI's user_id (a JSON text with a device fingerprint) leaves only as its SHA-256.
  expect(chat.safety_identifier).toBe(createHash('sha256').update(cli.metadata.user_id).digest('hex'));
  for (const message of chat.messages) {
    expect(Object.keys(message).filter((field) => !MESSAGE_FIELDS.includes(field))).toEqual([]);
    if (Array.isArray(message.content)) for (const part of message.content) expect(Object.keys(part).filter((field) => !PART_FIELDS.includes(field))).toEqual([]);
  }
  // Every tool the CLI offered (the deferred one too) as a function with its schema unchanged.
  expect(chat.tools).toEqual(cli.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } })));

  // Each system block of the CLI but its billing header (Anthropic's alone) is one `developer` message (gpt-5
  // models are reasoning models, which take system text as `developer`), followed by the conversation with
  // its system turns where the CLI put them.
  expect(cli.system[0]?.text).toMatch(/^x-anthropic-billing-header: /);
  const prompt = cli.system.slice(1);
  const leading = chat.messages.slice(0, prompt.length);
  expect(leading.map((message) => [message.role, message.content])).toEqual(prompt.map((block) => ['developer', block.text]));
  const [firstUser, systemTurn] = chat.messages.slice(prompt.length);
  expect(firstUser?.role).toBe('user');
  expect(textOf(firstUser?.content ?? '')).toBe(textOf(cli.messages[0]?.content ?? ''));
  expect(cli.messages[1]?.role, 'the CLI sends a system turn after the first user turn').toBe('system');
  expect(systemTurn).toEqual({ role: 'developer', content: textOf(cli.messages[1]?.content ?? '') });
  return { cli, chat };
}

describe.each(KEY_VARIABLES)('Claude Code with %s, OpenAI Chat Completions upstream', (variable) => {
  it('prints the answer of a one-turn conversation', async () => {
    target.upstream.enqueue(reply.fixture('openai-text'));
    const outcome = await runAgainst(target, { prompt: 'Invent a new holiday and describe its traditions.', model: MODEL, variable });
    expectAnswer(outcome, target, RECORDED_ANSWER);

    const [call] = messageCalls(target, 1) as [ProxiedRequest];
    expectCallerKeyHeader(call, variable, target.gateway.api_key);
    const { cli, chat } = expectChatTurn(call, target.upstream.requests[0] as RecordedRequest, target.gateway.api_key);
    expect(cli.messages.map((message) => message.role)).toEqual(['user', 'system']);
    expect(chat.messages.map((message) => message.role)).toEqual([...cli.system.slice(1).map(() => 'developer'), 'user', 'developer']);
  });

  it('/context counts tokens for the translated model in the gateway, without calling the upstream', async () => {
    const outcome = await runAgainst(target, { prompt: '/context', model: MODEL, variable });
    const printed = expectCompleted(outcome, target);
    expect(printed.startsWith('## Context Usage'), printed).toBe(true);
    expect(printed).toContain('**Model:** openai/gpt-5-mini');
    const calls = countTokensCalls(target);
    for (const call of calls) expectCallerKeyHeader(call, variable, target.gateway.api_key);
    expect(target.upstream.requests).toEqual([]);
  });

  it('runs a Read round trip: the file content reaches the upstream as a tool message', async () => {
    const workspace = probeWorkspace();
    try {
      target.upstream.enqueue(openAiReadCall(workspace.file, CALL_ID), reply.fixture('openai-text'));
      const prompt = `Read the file ${workspace.file} and tell me what it says.`;
      const outcome = await runAgainst(target, { prompt, model: MODEL, variable, cwd: workspace.cwd, allowedTools: ['Read'] });
      expectAnswer(outcome, target, RECORDED_ANSWER);

      const calls = messageCalls(target, 2);
      const turns = calls.map((call, turn) => {
        expectCallerKeyHeader(call, variable, target.gateway.api_key);
        return expectChatTurn(call, target.upstream.requests[turn] as RecordedRequest, target.gateway.api_key);
      });
      const second = turns[1]?.chat as ChatBody;
      expect(turns[1]?.cli.messages.map((message) => message.role)).toEqual(['user', 'system', 'assistant', 'user']);
      expect(second.messages.map((message) => message.role)).toEqual([...(turns[1]?.cli.system ?? []).slice(1).map(() => 'developer'), 'user', 'developer', 'assistant', 'tool']);

      const [assistant, tool] = second.messages.slice(-2) as [ChatMessage, ChatMessage];
      expect(assistant.tool_calls).toEqual([{ id: CALL_ID, type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: workspace.file }) } }]);
      expect(tool.tool_call_id).toBe(CALL_ID);
      expect(typeof tool.content === 'string' ? tool.content : JSON.stringify(tool.content)).toContain(workspace.content);
    } finally {
      workspace.remove();
    }
  });
});
