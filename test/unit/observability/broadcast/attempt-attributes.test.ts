/**
 * The attributes of an attempt's span: what that one inference call reported, where known, what the request
 * asked of every call, and a finish reason for every call that ended (`error` where a failed one gave none).
 */
import { describe, expect, it } from 'vitest';
import type { Attempt } from '#src/routing/attempt.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { attemptSpanAttributes, type AttemptAnswer } from '#src/observability/broadcast/attempt-attributes.ts';
import { inferenceRequest } from '#src/observability/broadcast/inference-request-attributes.ts';

const attempt = { model: 'test/m', upstreamModel: 'up-m', baseUrl: 'https://api.example.com/v1', provider: { slug: 'anthropic', displayName: 'Anthropic' }, credential: { kind: 'shared' } } as unknown as Attempt;
const record = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({ attempt, index: 0, status: 'success', httpStatus: 200, durationMs: 5, ...overrides });
const plain = inferenceRequest({ model: 'test/m', max_tokens: 64, messages: [] } as MessageRequest, false, null);
const USAGE_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_write.input_tokens', 'gen_ai.usage.reasoning.output_tokens'];

describe('attemptSpanAttributes', () => {
  it('names the call, its models and the upstream address', () => {
    expect(attemptSpanAttributes(record({ responseModel: 'up-m-20250101' }), 1, undefined, plain)).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'up-m',
      'gen_ai.request.max_tokens': 64,
      'gen_ai.response.model': 'up-m-20250101',
      'switchboard.model': 'test/m',
      'switchboard.attempt.index': 2,
      'switchboard.is_byok': false,
      'server.address': 'api.example.com',
      'server.port': 443,
      'http.response.status_code': 200,
      'switchboard.attempt.status': 'success',
    });
  });

  it.each<[string, AttemptRecord, AttemptAnswer | undefined, Record<string, unknown>]>([
    [
      'an answer: its usage (input with cache reads and writes), reasoning, finish reason and id',
      record(),
      { usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, output_tokens_details: { thinking_tokens: 4 } }, finishReason: 'end_turn', responseId: 'msg_1' },
      { 'gen_ai.usage.input_tokens': 15, 'gen_ai.usage.output_tokens': 5, 'gen_ai.usage.cache_read.input_tokens': 3, 'gen_ai.usage.cache_write.input_tokens': 2, 'gen_ai.usage.reasoning.output_tokens': 4, 'gen_ai.response.finish_reasons': ['end_turn'], 'gen_ai.response.id': 'msg_1' },
    ],
    ['a step: null cache counts read as 0, no id', record(), { usage: { input_tokens: 7, output_tokens: 1, cache_read_input_tokens: null, cache_creation_input_tokens: null }, finishReason: 'tool_use' }, { 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.cache_read.input_tokens': 0, 'gen_ai.response.finish_reasons': ['tool_use'] }],
    ['a failure: error.type, finish reason error, no usage', record({ status: 'overloaded', httpStatus: 529 }), undefined, { 'error.type': 'overloaded', 'http.response.status_code': 529, 'gen_ai.response.finish_reasons': ['error'] }],
    ['a stream that failed after its stop reason: that reason stands', record({ status: 'server_error' }), { usage: { input_tokens: 4, output_tokens: 2 }, finishReason: 'max_tokens' }, { 'error.type': 'server_error', 'gen_ai.response.finish_reasons': ['max_tokens'] }],
    ['a refusal the request moved on from: its reason, refusal', record({ status: 'refusal' }), undefined, { 'switchboard.attempt.status': 'refusal', 'gen_ai.response.finish_reasons': ['refusal'] }],
    ['counts the gateway estimated: marked', record(), { usage: { input_tokens: 7, output_tokens: 3, estimated: true }, finishReason: 'end_turn' }, { 'gen_ai.usage.output_tokens': 3, 'switchboard.usage.estimated': true }],
    [
      'a failure its vendor billed: error.type and the billed usage, over what was heard before',
      record({ status: 'server_error', httpStatus: 200, billedUsage: { input_tokens: 40, output_tokens: 9, cache_creation_input_tokens: null, cache_read_input_tokens: null } as AttemptRecord['billedUsage'] }),
      { usage: { input_tokens: 40, output_tokens: 2 }, finishReason: null },
      { 'error.type': 'server_error', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 9, 'gen_ai.response.finish_reasons': ['error'] },
    ],
  ])('%s', (_label, tried, answer, expected) => {
    expect(attemptSpanAttributes(tried, 0, answer, plain)).toMatchObject(expected);
  });

  it("carries what the request asked of every call: its conversation, stream flag, parameters and reasoning level", () => {
    const request = { model: 'test/m', max_tokens: 256, temperature: 0.2, top_p: 0.9, top_k: 40, stop_sequences: ['END'], output_config: { effort: 'high', format: { type: 'json_schema', schema: {} } }, messages: [] };
    const shared = inferenceRequest(request as unknown as MessageRequest, true, 'session-1');
    for (const tried of [record(), record({ status: 'overloaded', httpStatus: 529 })]) {
      expect(attemptSpanAttributes(tried, 0, undefined, shared)).toMatchObject({
        'gen_ai.conversation.id': 'session-1',
        'gen_ai.request.stream': true,
        'gen_ai.request.max_tokens': 256,
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.top_p': 0.9,
        'gen_ai.request.top_k': 40,
        'gen_ai.request.stop_sequences': ['END'],
        'gen_ai.request.reasoning.level': 'high',
        'gen_ai.output.type': 'json',
      });
    }
    const attributes = attemptSpanAttributes(record(), 0, undefined, plain);
    for (const key of ['gen_ai.conversation.id', 'gen_ai.request.stream', 'gen_ai.request.temperature', 'gen_ai.request.top_p', 'gen_ai.request.top_k', 'gen_ai.request.stop_sequences', 'gen_ai.request.reasoning.level', 'gen_ai.output.type']) {
      expect(attributes).not.toHaveProperty([key]);
    }
  });

  it('adds no usage when the call reported no counts, and no error.type to a refusal', () => {
    const attributes = attemptSpanAttributes(record({ status: 'refusal' }), 0, { usage: {}, finishReason: 'refusal' }, plain);
    for (const key of USAGE_KEYS) expect(attributes).not.toHaveProperty([key]);
    expect(attributes).not.toHaveProperty(['error.type']);
    expect(attributes['gen_ai.response.finish_reasons']).toEqual(['refusal']);
  });

  it('says how a failed call failed once, as error.type, and marks only estimated counts', () => {
    const failed = attemptSpanAttributes(record({ status: 'overloaded', httpStatus: 529 }), 0, undefined, plain);
    expect(failed['error.type']).toBe('overloaded');
    expect(failed).not.toHaveProperty(['switchboard.attempt.status']);
    expect(attemptSpanAttributes(record({ status: 'refusal' }), 0, undefined, plain)['switchboard.attempt.status']).toBe('refusal');
    const reported = attemptSpanAttributes(record(), 0, { usage: { input_tokens: 7, output_tokens: 3 }, finishReason: 'end_turn' }, plain);
    expect(reported).not.toHaveProperty(['switchboard.usage.estimated']);
  });
});
