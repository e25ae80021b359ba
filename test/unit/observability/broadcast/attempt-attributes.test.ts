/** The attributes of an attempt's span: what that one inference call reported, where known. */
import { describe, expect, it } from 'vitest';
import type { Attempt } from '#src/routing/attempt.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { attemptSpanAttributes, type AttemptAnswer } from '#src/observability/broadcast/attempt-attributes.ts';

const attempt = { model: 'test/m', upstreamModel: 'up-m', baseUrl: 'https://api.example.com/v1', provider: { slug: 'anthropic', displayName: 'Anthropic' }, credential: { kind: 'shared' } } as unknown as Attempt;
const record = (overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({ attempt, index: 0, status: 'success', httpStatus: 200, durationMs: 5, ...overrides });
const USAGE_KEYS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_write.input_tokens', 'gen_ai.usage.reasoning.output_tokens'];

describe('attemptSpanAttributes', () => {
  it('names the call, its models and the upstream address', () => {
    expect(attemptSpanAttributes(record({ responseModel: 'up-m-20250101' }), 1, undefined)).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'up-m',
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
    ['a failure: error.type, no usage', record({ status: 'overloaded', httpStatus: 529 }), undefined, { 'error.type': 'overloaded', 'http.response.status_code': 529 }],
    ['counts the gateway estimated: marked', record(), { usage: { input_tokens: 7, output_tokens: 3, estimated: true }, finishReason: 'end_turn' }, { 'gen_ai.usage.output_tokens': 3, 'switchboard.usage.estimated': true }],
    [
      'a failure its vendor billed: error.type and the billed usage, over what was heard before',
      record({ status: 'server_error', httpStatus: 200, billedUsage: { input_tokens: 40, output_tokens: 9, cache_creation_input_tokens: null, cache_read_input_tokens: null } as AttemptRecord['billedUsage'] }),
      { usage: { input_tokens: 40, output_tokens: 2 }, finishReason: null },
      { 'error.type': 'server_error', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 9 },
    ],
  ])('%s', (_label, tried, answer, expected) => {
    expect(attemptSpanAttributes(tried, 0, answer)).toMatchObject(expected);
  });

  it('adds no usage when the call reported no counts, and no error.type to a refusal', () => {
    const attributes = attemptSpanAttributes(record({ status: 'refusal' }), 0, { usage: {}, finishReason: 'refusal' });
    for (const key of USAGE_KEYS) expect(attributes).not.toHaveProperty([key]);
    expect(attributes).not.toHaveProperty(['error.type']);
    expect(attributes['gen_ai.response.finish_reasons']).toEqual(['refusal']);
  });

  it('says how a failed call failed once, as error.type, and marks only estimated counts', () => {
    const failed = attemptSpanAttributes(record({ status: 'overloaded', httpStatus: 529 }), 0, undefined);
    expect(failed['error.type']).toBe('overloaded');
    expect(failed).not.toHaveProperty(['switchboard.attempt.status']);
    expect(attemptSpanAttributes(record({ status: 'refusal' }), 0, undefined)['switchboard.attempt.status']).toBe('refusal');
    const reported = attemptSpanAttributes(record(), 0, { usage: { input_tokens: 7, output_tokens: 3 }, finishReason: 'end_turn' });
    expect(reported).not.toHaveProperty(['switchboard.usage.estimated']);
  });
});
