/**
 * Claude Code against the gateway, as a user would set it up (`ANTHROPIC_BASE_URL` at the gateway's `/api`,
 * `ANTHROPIC_AUTH_TOKEN` an inference key): its HEAD probe, then a streamed beta call with its headers and a
 * body carrying context_management, thinking, metadata.user_id, cached system blocks and two dozen tools with
 * rich JSON schemas. Everything must be accepted and reach the Anthropic upstream intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

function richTool(index: number) {
  return {
    name: `Tool${index}`,
    description: `Tool number ${index}. Usage notes:\n- accepts paths\n- returns JSON`,
    input_schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      required: ['file_path'],
      properties: {
        file_path: { type: 'string', description: 'The absolute path to the file' },
        mode: { type: 'string', enum: ['read', 'write', 'append'], default: 'read' },
        limit: { type: 'number', exclusiveMinimum: 0 },
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['old_string', 'new_string'],
            properties: { old_string: { type: 'string' }, new_string: { type: 'string' }, replace_all: { type: 'boolean', default: false } },
          },
        },
        options: { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] },
      },
    },
  };
}

const CLAUDE_CODE_BODY = {
  model: 'claude-sonnet-4-5-20250929',
  max_tokens: 32000,
  temperature: 1,
  stream: true,
  metadata: { user_id: 'user_5f1b9c0e3a_account__session_0b7c6a52-3f0e-4a8e-9a43-7d2f1e6c9b10' },
  thinking: { type: 'enabled', budget_tokens: 31999 },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  // A parameter Anthropic might add tomorrow: the spec does not name it, the gateway must pass it through.
  future_parameter: { enabled: true, level: 3 },
  system: [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'You are an interactive CLI tool that helps users with software engineering tasks.', cache_control: { type: 'ephemeral' } },
  ],
  tools: Array.from({ length: 24 }, (_, index) => richTool(index)),
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>This is a reminder.</system-reminder>' },
        { type: 'text', text: 'list the files in this directory', cache_control: { type: 'ephemeral' } },
      ],
    },
  ],
};

const CLAUDE_CODE_HEADERS = {
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27',
  'anthropic-dangerous-direct-browser-access': 'true',
  'x-app': 'cli',
  'user-agent': 'claude-cli/2.0.14 (external, cli)',
  'x-claude-code-session-id': '0b7c6a52-3f0e-4a8e-9a43-7d2f1e6c9b10',
  'x-stainless-lang': 'js',
  'x-stainless-retry-count': '0',
};

describe('Claude Code through the gateway', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-clear-thinking.1') });
    gateway = await startTestGateway({
      catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-claude-code-0001" }\n`,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('answers the HEAD probe on the base URL', async () => {
    const response = await fetch(`${gateway.origin}/api`, { method: 'HEAD' });
    expect(response.status).toBe(200);
  });

  it('accepts the streamed beta call and forwards it intact', async () => {
    const response = await fetch(`${gateway.origin}/api/v1/messages?beta=true`, {
      method: 'POST',
      headers: { ...CLAUDE_CODE_HEADERS, authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(CLAUDE_CODE_BODY),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toContain('event: message_start');
    expect(text).toContain('event: message_stop');

    const sent = upstream.lastRequest();
    expect(sent?.headers['anthropic-beta']).toBe(CLAUDE_CODE_HEADERS['anthropic-beta']);
    expect(sent?.headers['x-api-key']).toBe('sk-ant-shared-claude-code-0001');
    const { model, ...forwarded } = sent?.body as Record<string, unknown>;
    const { model: _requested, ...original } = CLAUDE_CODE_BODY;
    expect(model).toBe('claude-sonnet-4-5');
    expect(forwarded).toEqual(original);
  });

  it('counts tokens for the same body', async () => {
    const { stream: _stream, max_tokens: _max, temperature: _temperature, ...countBody } = CLAUDE_CODE_BODY;
    const response = await fetch(`${gateway.origin}/api/v1/messages/count_tokens?beta=true`, {
      method: 'POST',
      headers: { ...CLAUDE_CODE_HEADERS, authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(countBody),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 12 });
  });
});
