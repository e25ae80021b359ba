import { describe, expect, it } from 'vitest';
import type { CountTokensRequest, MessageRequest } from '#src/api-types.ts';
import {
  GATEWAY_ONLY_FIELDS,
  convertToAnthropicBody,
  convertToAnthropicCountTokensBody,
  withoutForeignThinking,
} from '#src/providers/anthropic/convert-to-anthropic-body.ts';

const gatewayFields = {
  fallbacks: [{ model: 'openai/gpt-5' }],
  provider: { order: ['anthropic'], allow_fallbacks: false },
  plugins: [{ id: 'auto-router', enabled: false }],
  session_id: 'session-1',
  speed: 'standard',
  max_tool_calls: 3,
  trace: { trace_id: 'trace-1' },
  user: 'user-42',
  cache_control: { type: 'ephemeral' },
};

function requestWith(extra: Record<string, unknown>): MessageRequest {
  return {
    model: 'anthropic/claude-sonnet-4.5',
    max_tokens: 128,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    system: [{ type: 'text', text: 'Be brief.' }],
    temperature: 0.2,
    metadata: { user_id: 'u-1' },
    ...extra,
  } as MessageRequest;
}

describe('convertToAnthropicBody', () => {
  it('replaces only the model, drops every gateway field and keeps Anthropic and unknown fields as sent', () => {
    const request = requestWith({ ...gatewayFields, container: 'container_1', inference_geo: 'us', context_management: { edits: [] } });
    const body = JSON.parse(convertToAnthropicBody(request, 'claude-sonnet-4-5', false)) as Record<string, unknown>;

    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 128,
      messages: request.messages,
      system: request.system,
      temperature: 0.2,
      metadata: { user_id: 'u-1' },
      container: 'container_1',
      inference_geo: 'us',
      context_management: { edits: [] },
    });
  });

  it.each(GATEWAY_ONLY_FIELDS.map((name) => [name]))('removes the gateway field %s', (name) => {
    const body = JSON.parse(convertToAnthropicBody(requestWith({ [name]: 'x' }), 'claude-x', false)) as Record<string, unknown>;
    expect(body).not.toHaveProperty(name);
  });

  it.each([
    [true, undefined, true],
    [true, false, true],
    [false, true, undefined],
    [false, undefined, undefined],
  ])('stream=%s with client stream=%s sends stream %s', (stream, clientStream, expected) => {
    const request = requestWith(clientStream === undefined ? {} : { stream: clientStream });
    const body = JSON.parse(convertToAnthropicBody(request, 'claude-x', stream)) as Record<string, unknown>;
    expect(body.stream).toBe(expected);
  });

  it('does not modify the request it was given', () => {
    const request = requestWith(gatewayFields);
    const before = structuredClone(request);
    convertToAnthropicBody(request, 'claude-x', true);
    expect(request).toEqual(before);
  });

  it('keeps block-level cache markers, thinking signatures and server tools intact', () => {
    const messages = [
      { role: 'user', content: 'What is 2+2?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Add them.', signature: 'EqQBCkYIBxgCKkD+sig==' },
          { type: 'redacted_thinking', data: 'ENCRYPTED' },
          { type: 'text', text: '4', citations: null },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    ];
    const tools = [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }];
    const body = JSON.parse(convertToAnthropicBody(requestWith({ messages, tools }), 'claude-x', false)) as Record<string, unknown>;
    expect(body.messages).toEqual(messages);
    expect(body.tools).toEqual(tools);
  });
});

describe('convertToAnthropicCountTokensBody', () => {
  it('keeps the fields count_tokens takes, unknown ones included, and drops generation-only and gateway fields', () => {
    const request = {
      model: 'anthropic/claude-sonnet-4.5',
      messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Answer in French from now on.' }],
      system: 'Be brief.',
      future_parameter_20270101: { level: 3 },
      metadata: { user_id: 'user-1' },
      tools: [{ name: 'lookup', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 10,
      stream: true,
      temperature: 1,
      ...gatewayFields,
    } as unknown as CountTokensRequest;
    const body = JSON.parse(convertToAnthropicCountTokensBody(request, 'claude-sonnet-4-5')) as Record<string, unknown>;
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      messages: request.messages,
      system: 'Be brief.',
      tools: request.tools,
      tool_choice: { type: 'auto' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
      future_parameter_20270101: { level: 3 },
    });
  });
});

describe('thinking from another vendor', () => {
  it('is dropped before an Anthropic upstream sees it; Anthropic thinking stays', () => {
    const request: MessageRequest = {
      model: 'anthropic/claude-sonnet-4.5',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from gpt', signature: 'sbsig1_eyJ2ZW5kb3IiOiJvcGVuYWkifQ' },
            { type: 'thinking', thinking: 'from claude', signature: 'EqQBCkYIBRgC' },
            // Bedrock's redacted reasoning, as the gateway gave it; Anthropic's own redacted block stays.
            { type: 'redacted_thinking', data: 'sbsig1_eyJuIjoiYmVkcm9jayIsIm0iOnsicmVkYWN0ZWRDb250ZW50IjoiQUE9PSJ9fQ' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
            { type: 'text', text: 'hello' },
          ],
        },
        { role: 'user', content: 'again' },
      ],
    };
    const body = JSON.parse(convertToAnthropicBody(request, 'claude-sonnet-4-5', false)) as MessageRequest;
    expect(body.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'from claude', signature: 'EqQBCkYIBRgC' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      { type: 'text', text: 'hello' },
    ]);
    expect(withoutForeignThinking(body.messages)).toBe(body.messages);
  });
});

describe('speed: fast', () => {
  it('asks Anthropic for fast mode only when the planned endpoint runs its fast variant', () => {
    const request: MessageRequest = { model: 'anthropic/claude-opus-4.6', max_tokens: 10, speed: 'fast', messages: [{ role: 'user', content: 'hi' }] };
    expect(JSON.parse(convertToAnthropicBody(request, 'claude-opus-4-6', false, true))).toMatchObject({ speed: 'fast' });
    expect(JSON.parse(convertToAnthropicBody(request, 'claude-opus-4-6', false, false))).not.toHaveProperty('speed');
  });
});
