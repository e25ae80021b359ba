/**
 * Claude Code on another vendor's model: the request bodies the CLI 2.1.330 sent (test/fixtures/claude-code/,
 * posted as recorded with its headers and `?beta=true`) stream an answer from OpenAI Chat Completions and
 * Responses upstreams. Thinking with `display`, deferred tools, context management, a JSON-string user id and
 * system turns are all accepted; the system turn reaches OpenAI as a system message at its position.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';

let chat: FakeUpstream;
let responses: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [chat, responses] = await Promise.all([startFakeOpenAiChat(), startFakeOpenAiResponses()]);
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, '    name: Claude Code target', '    context_length: 400000', '    capabilities: { tools: true, thinking: true, vision: true }', '    endpoints:', `      - { provider: ${provider}, model: ${upstream}, pricing: { input: 1, output: 2 } }`].join('\n');
  gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  openai: { base_url: "${responses.baseURL}", api_key: "sk-openai-shared-0001" }`,
      `  openai-chat-test: { family: openai-chat, display_name: OpenAI Chat, base_url: "${chat.baseURL}", api_key: "sk-chat-shared-0001" }`,
      'models:',
      model('openai/gpt-5.1', 'openai', 'gpt-5.1'),
      model('test/gpt-chat', 'openai-chat-test', 'gpt-4.1-nano'),
      '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), responses?.close()]);
});

beforeEach(() => {
  chat.clear();
  responses.clear();
});

const HEADERS = {
  'anthropic-version': '2023-06-01',
  'anthropic-beta':
    'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24,thinking-display-updates-2026-08-18',
  'x-app': 'cli',
  'user-agent': 'claude-cli/2.1.330 (external, sdk-cli)',
  'x-claude-code-session-id': 'fa1f588d-29b3-4a17-9b4b-34948d658fe5',
};

async function postAsClaudeCode(body: Record<string, unknown>): Promise<{ status: number; events: string[]; text: string }> {
  const response = await fetch(`${gateway.origin}/api/v1/messages?beta=true`, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) return { status: response.status, events: [], text: await response.text() };
  const events: string[] = [];
  for await (const event of readSseEvents(response.body)) events.push(event.event);
  return { status: response.status, events, text: '' };
}

const BODIES = ['openai-gpt-5-1.1', 'openai-gpt-5-1.2', 'openai-gpt-5-1-tool-search.2', 'claude-sonnet-4-5-system-turns.1', 'claude-sonnet-4-5-system-turns.2'] as const;

describe('Claude Code on OpenAI', () => {
  it.each(BODIES)('%s streams an answer from Chat Completions, the system turn at its position', async (name) => {
    chat.enqueue(reply.fixture('openai-text'));
    const body = readFixture<{ messages: Array<{ role: string }> }>('claude-code', name);
    const call = await postAsClaudeCode({ ...body, model: 'test/gpt-chat' });

    expect(call.status, call.text).toBe(200);
    expect(call.events[0]).toBe('message_start');
    expect(call.events.at(-1)).toBe('message_stop');
    const sent = chat.lastRequest().body as { messages: Array<{ role: string }>; tools: unknown[]; user?: string; stream: boolean };
    const clientRoles = body.messages.map((message) => message.role);
    // The client's three system blocks but the billing header (Anthropic's, left out for other vendors) up
    // front, then the conversation with its system turns where the client put them.
    const expected = ['system', 'system', ...clientRoles.flatMap((role, index) => (role === 'user' && index > 0 && clientRoles[index - 1] === 'assistant' ? ['tool'] : [role]))];
    expect(sent.messages.map((message) => message.role)).toEqual(expected);
    expect(sent.tools).toHaveLength((body as unknown as { tools: unknown[] }).tools.length);
    expect(sent.stream).toBe(true);
  });

  it('streams an answer from the Responses API for the model slug the CLI sent', async () => {
    responses.enqueue(reply.fixture('openai-phase.1'));
    const body = readFixture<Record<string, unknown>>('claude-code', 'openai-gpt-5-1.2');
    const call = await postAsClaudeCode(body);

    expect(call.status, call.text).toBe(200);
    expect(call.events.at(-1)).toBe('message_stop');
    const sent = responses.lastRequest().body as { input: Array<{ role?: string; type?: string }>; reasoning?: unknown };
    expect(sent.input.map((item) => item.role ?? item.type)).toEqual(['developer', 'developer', 'user', 'developer', 'function_call', 'function_call_output']);
    expect(sent.reasoning).toMatchObject({ effort: 'high' });
  });
});
