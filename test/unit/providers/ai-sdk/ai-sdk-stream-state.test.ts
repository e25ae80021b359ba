import { describe, expect, it } from 'vitest';
import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider';
import { UpstreamError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { AiSdkStreamState } from '#src/providers/ai-sdk/ai-sdk-stream-state.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import type { MessageStreamEvent } from '#src/api-types.ts';
import { wireEvent } from '#test/helpers/sse-events.ts';

const usage: LanguageModelV4Usage = {
  inputTokens: { total: 120, noCache: 20, cacheRead: 90, cacheWrite: 10 },
  outputTokens: { total: 40, text: 30, reasoning: 10 },
};

function finish(unified: 'stop' | 'tool-calls' | 'content-filter' | 'length' | 'error' | 'interrupted', raw?: string): LanguageModelV4StreamPart {
  return { type: 'finish', usage, finishReason: { unified, raw } };
}

function run(parts: LanguageModelV4StreamPart[], family: AiSdkFamily = 'openai-chat'): Array<{ event: string; data: Record<string, unknown> }> {
  const state = new AiSdkStreamState({ profile: vendorProfile(family), provider: 'vendor', upstreamModel: 'model-x', estimateInput: () => 0 });
  const events: MessageStreamEvent[] = [];
  for (const part of parts) events.push(...state.push(part));
  events.push(...state.end());
  return events.map(wireEvent).map((event) => ({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> }));
}

const finalUsage = { input_tokens: 20, output_tokens: 40, cache_creation_input_tokens: 10, cache_read_input_tokens: 90, service_tier: 'standard', output_tokens_details: { thinking_tokens: 10 } };

describe('AiSdkStreamState', () => {
  it('emits the exact Anthropic sequence for text followed by a streamed tool call', () => {
    const events = run([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Let me ' },
      { type: 'text-delta', id: 't', delta: 'check.' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'weather' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"city":' },
      { type: 'text-end', id: 't' },
      { type: 'tool-input-delta', id: 'call_1', delta: '"Paris"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"city":"Paris"}' },
      finish('tool-calls'),
    ]);
    const messageId = (events[0]?.data.message as { id: string }).id;
    expect(messageId).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(events).toEqual([
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: { id: messageId, type: 'message', role: 'assistant', model: 'model-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
        },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'check.' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'weather', input: {} } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: finalUsage } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });

  it('keeps two interleaved tool calls whole and in order, buffering the second until the first is done', () => {
    const events = run([
      { type: 'tool-input-start', id: 'a', toolName: 'first' },
      { type: 'tool-input-start', id: 'b', toolName: 'second' },
      { type: 'tool-input-delta', id: 'b', delta: '{"y":' },
      { type: 'tool-input-delta', id: 'a', delta: '{"x":1}' },
      { type: 'text-delta', id: 'late', delta: 'after' },
      { type: 'tool-input-delta', id: 'b', delta: '2}' },
      { type: 'tool-input-end', id: 'a' },
      { type: 'tool-input-end', id: 'b' },
      finish('tool-calls'),
    ]);
    expect(events.slice(1).map(({ data }) => data)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'a', name: 'first', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"x":1}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'b', name: 'second', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"y":2}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'after' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: finalUsage },
      { type: 'message_stop' },
    ]);
  });

  it('turns reasoning into a thinking block with a signature_delta carrying the vendor metadata', () => {
    const events = run(
      [
        { type: 'reasoning-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: 'Count the r' },
        { type: 'reasoning-delta', id: '0', delta: 's.', providerMetadata: { bedrock: { signature: 'sig-1' }, amazonBedrock: { signature: 'sig-1' } } },
        { type: 'reasoning-end', id: '0' },
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '1', delta: 'Three.' },
        { type: 'text-end', id: '1' },
        finish('stop', 'end_turn'),
      ],
      'bedrock',
    );
    const signatureEvent = events.find(({ data }) => (data.delta as { type?: string } | undefined)?.type === 'signature_delta');
    const signature = (signatureEvent?.data.delta as { signature: string }).signature;
    expect(decodeReasoningSignature(signature)).toEqual({ namespace: 'bedrock', metadata: { signature: 'sig-1' } });
    expect(events.slice(1, 6).map(({ data }) => data)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Count the r' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 's.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature } },
      { type: 'content_block_stop', index: 0 },
    ]);
  });

  it('makes redacted Bedrock reasoning a redacted_thinking block with its data on the start event', () => {
    const events = run(
      [
        { type: 'reasoning-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: '', providerMetadata: { bedrock: { redactedData: 'opaque==' } } },
        { type: 'reasoning-end', id: '0' },
        finish('stop'),
      ],
      'bedrock',
    );
    const start = events[1]?.data as { content_block: { type: string; data: string } };
    expect(start.content_block.type).toBe('redacted_thinking');
    expect(decodeReasoningSignature(start.content_block.data)).toEqual({ namespace: 'bedrock', metadata: { redactedData: 'opaque==' } });
    expect(events.slice(2).map(({ event }) => event)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('emits a whole tool call as one delta, skips empty text, and closes even with no content', () => {
    expect(
      run([
        { type: 'text-start', id: 't' },
        { type: 'text-end', id: 't' },
        { type: 'tool-call', toolCallId: 'g1', toolName: 'lookup', input: '{"q":"x"}' },
        finish('tool-calls'),
      ]).map(({ data }) => data.type === 'content_block_delta' ? data.delta : data.type),
    ).toEqual(['message_start', 'content_block_start', { type: 'input_json_delta', partial_json: '{"q":"x"}' }, 'content_block_stop', 'message_delta', 'message_stop']);
    expect(run([finish('length')]).map(({ event }) => event)).toEqual(['message_start', 'message_delta', 'message_stop']);
  });

  it('reports a content filter as a refusal with details', () => {
    const events = run([{ type: 'text-delta', id: 't', delta: 'I' }, finish('content-filter', 'SAFETY')], 'google');
    expect(events.at(-2)?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'refusal', stop_sequence: null, stop_details: { type: 'refusal', explanation: 'Google Gemini stopped the answer with its content filter (SAFETY).' } },
      usage: finalUsage,
    });
  });

  it.each([
    ['a stream cut before its finish part', [{ type: 'text-delta', id: 't', delta: 'partial' }], 'malformed_response'],
    ['an interrupted finish', [finish('interrupted')], 'malformed_response'],
    ['an error finish', [finish('error')], 'server_error'],
    ['an error part with a rate-limit code', [{ type: 'error', error: { error: { type: 'rate_limit_error', message: 'slow down' } } }], 'rate_limited'],
    ['an error part with an unknown payload', [{ type: 'error', error: { message: 'boom' } }], 'server_error'],
  ] as Array<[string, LanguageModelV4StreamPart[], string]>)('ends %s in a typed UpstreamError', (_name, parts, kind) => {
    let error: unknown;
    try {
      run(parts);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).kind).toBe(kind);
    expect((error as UpstreamError).publicMessage).not.toContain('slow down');
  });

  it('rejects tool input that is not a JSON object', () => {
    expect(() => run([{ type: 'tool-call', toolCallId: 'x', toolName: 'f', input: '{"broken"' }, finish('tool-calls')])).toThrow(UpstreamError);
  });

  it('throws on broken tool input before its block stops, holding the blocks after it', () => {
    // The Anthropic SDK parses a tool_use input at content_block_stop: a stop here would raise its own SyntaxError.
    const state = new AiSdkStreamState({ profile: vendorProfile('openai-chat'), provider: 'vendor', upstreamModel: 'model-x', estimateInput: () => 0 });
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'tool-input-start', id: 'x', toolName: 'f' },
      { type: 'tool-input-delta', id: 'x', delta: "{'city': 'Paris'}" },
      { type: 'tool-input-end', id: 'x' },
      { type: 'tool-call', toolCallId: 'x', toolName: 'f', input: "{'city': 'Paris'}" },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Done.' },
      finish('tool-calls'),
    ];
    const events = parts.flatMap((part) => state.push(part));
    expect(events.map((event) => event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(() => state.end()).toThrow(UpstreamError);
  });

  it('closes a tool call the output limit cut off as max_tokens: its half-written input is the answer', () => {
    const events = run([{ type: 'tool-call', toolCallId: 'x', toolName: 'f', input: '{"city": "Par' }, finish('length')]);
    expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(events[2]?.data.delta).toEqual({ type: 'input_json_delta', partial_json: '{"city": "Par' });
    expect((events[4]?.data.delta as { stop_reason: string }).stop_reason).toBe('max_tokens');
  });
});
