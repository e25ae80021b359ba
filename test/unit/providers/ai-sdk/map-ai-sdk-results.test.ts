import { describe, expect, it } from 'vitest';
import { APICallError, JSONParseError, UnsupportedFunctionalityError, type LanguageModelV4FinishReason } from '@ai-sdk/provider';
import { BadRequestError, UnsupportedFeatureError, UpstreamError } from '#src/errors.ts';
import { vendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertFromAiSdkResult } from '#src/providers/ai-sdk/convert-from-ai-sdk-result.ts';
import { convertFromAiSdkUsage } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';
import { mapAiSdkError } from '#src/providers/ai-sdk/map-ai-sdk-error.ts';
import { mapAiSdkFinishReason } from '#src/providers/ai-sdk/map-ai-sdk-finish-reason.ts';
import { decodeReasoningSignature, encodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';

describe('mapAiSdkFinishReason', () => {
  it.each([
    [{ unified: 'stop', raw: 'stop' }, { outcome: 'stop', stopReason: 'end_turn' }],
    [{ unified: 'stop', raw: 'stop_sequence' }, { outcome: 'stop', stopReason: 'stop_sequence' }],
    [{ unified: 'length', raw: 'length' }, { outcome: 'stop', stopReason: 'max_tokens' }],
    [{ unified: 'tool-calls', raw: 'tool_calls' }, { outcome: 'stop', stopReason: 'tool_use' }],
    [{ unified: 'other', raw: 'weird' }, { outcome: 'stop', stopReason: 'end_turn' }],
    [{ unified: 'other', raw: undefined }, { outcome: 'failure', kind: 'malformed_response', detail: 'the answer ended without a stop reason' }],
    [
      { unified: 'content-filter', raw: 'content_filter' },
      { outcome: 'stop', stopReason: 'refusal', refusal: { type: 'refusal', explanation: 'OpenAI Chat Completions stopped the answer with its content filter (content_filter).' } },
    ],
    [{ unified: 'error', raw: undefined }, { outcome: 'failure', kind: 'server_error', detail: 'the model stopped with an error (no reason given)' }],
    [{ unified: 'interrupted', raw: undefined }, { outcome: 'failure', kind: 'malformed_response', detail: 'the stream ended without a completion signal' }],
  ] as Array<[LanguageModelV4FinishReason, unknown]>)('maps %j', (reason, expected) => {
    expect(mapAiSdkFinishReason(reason, 'OpenAI Chat Completions')).toEqual(expected);
  });
});

describe('convertFromAiSdkUsage', () => {
  // The request's input estimate and the answer's characters (41 characters: 11 tokens at 4 a token).
  const ESTIMATE = { inputTokens: () => 120, outputCharacters: () => 41 };
  it.each([
    [
      'cached tokens taken out of input_tokens',
      { inputTokens: { total: 1000, noCache: 200, cacheRead: 700, cacheWrite: 100 }, outputTokens: { total: 50, text: 40, reasoning: 10 } },
      { input_tokens: 200, output_tokens: 50, cache_creation_input_tokens: 100, cache_read_input_tokens: 700, service_tier: 'standard', output_tokens_details: { thinking_tokens: 10 } },
    ],
    [
      'no noCache given: total minus reads and writes',
      { inputTokens: { total: 1000, noCache: undefined, cacheRead: 600, cacheWrite: undefined }, outputTokens: { total: 5, text: undefined, reasoning: undefined } },
      { input_tokens: 400, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 600, service_tier: 'standard' },
    ],
    [
      'nothing reported: both estimated, never 0',
      { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
      { input_tokens: 120, output_tokens: 11, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', estimated: true },
    ],
    [
      'input reported, output not: only output estimated',
      { inputTokens: { total: 30, noCache: 30, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
      { input_tokens: 30, output_tokens: 11, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', estimated: true },
    ],
  ])('%s', (_name, usage, expected) => {
    expect(convertFromAiSdkUsage(usage, ESTIMATE)).toEqual(expected);
  });

  // Recorded from xAI (test/fixtures/xai/xai-text.json): 12 + 1 + 228 = 241, reasoning outside completion.
  const xaiRaw = { prompt_tokens: 12, completion_tokens: 1, total_tokens: 241, completion_tokens_details: { reasoning_tokens: 228 } };
  it('bills reasoning a vendor counts outside completion_tokens (xAI) as output', () => {
    const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 1, text: 0, reasoning: 228 }, raw: xaiRaw };
    expect(convertFromAiSdkUsage(usage, ESTIMATE)).toMatchObject({ output_tokens: 229, output_tokens_details: { thinking_tokens: 228 } });
  });

  it('splits Bedrock cache writes by lifetime (cacheDetails) as Anthropic cache_creation', () => {
    const raw = { inputTokens: 10, outputTokens: 2, cacheWriteInputTokens: 300, cacheDetails: [{ inputTokens: 200, ttl: '1h' }, { inputTokens: 100, ttl: '5m' }] };
    const usage = { inputTokens: { total: 310, noCache: 10, cacheRead: 0, cacheWrite: 300 }, outputTokens: { total: 2, text: 2, reasoning: undefined }, raw };
    expect(convertFromAiSdkUsage(usage, ESTIMATE)).toMatchObject({ input_tokens: 10, cache_creation_input_tokens: 300, cache_creation: { ephemeral_1h_input_tokens: 200, ephemeral_5m_input_tokens: 100 } });
  });

  it('keeps completion_tokens when it already includes reasoning (OpenAI)', () => {
    const raw = { prompt_tokens: 12, completion_tokens: 229, total_tokens: 241, completion_tokens_details: { reasoning_tokens: 228 } };
    const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 229, text: 1, reasoning: 228 }, raw };
    expect(convertFromAiSdkUsage(usage, ESTIMATE).output_tokens).toBe(229);
  });
});

describe('convertFromAiSdkResult', () => {
  it('builds the message with ordered blocks, parsed tool input and the stop sequence Bedrock names', () => {
    const { value, warnings } = convertFromAiSdkResult({
      profile: vendorProfile('bedrock'),
      provider: 'bedrock',
      upstreamModel: 'anthropic.claude-x',
      estimateInput: () => 0,
      result: {
        content: [
          { type: 'reasoning', text: 'hmm', providerMetadata: { bedrock: { signature: 's' } } },
          { type: 'text', text: 'Done' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'f', input: '{"a":[1]}' },
          { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com' },
        ],
        finishReason: { unified: 'stop', raw: 'stop_sequence' },
        usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 3, text: 3, reasoning: undefined } },
        providerMetadata: { bedrock: { stopSequence: '###' } },
      },
    });
    expect(value.id).toMatch(/^msg_/);
    expect({ ...value, id: 'msg' }).toEqual({
      id: 'msg',
      type: 'message',
      role: 'assistant',
      model: 'anthropic.claude-x',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: encodeReasoningSignature({ namespace: 'bedrock', metadata: { signature: 's' } }) },
        { type: 'text', text: 'Done' },
        { type: 'tool_use', id: 't1', name: 'f', input: { a: [1] } },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      usage: { input_tokens: 10, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    });
    expect(warnings).toEqual(['source output dropped: it has no Anthropic content block']);
  });
});

describe('reasoning signatures', () => {
  it('round-trips and ignores signatures it did not make', () => {
    const metadata = { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA' };
    expect(decodeReasoningSignature(encodeReasoningSignature({ namespace: 'openai', metadata }))).toEqual({ namespace: 'openai', metadata });
    expect(decodeReasoningSignature('EqQBCkgIAhABGAIiQL')).toBeUndefined();
    expect(decodeReasoningSignature('sbsig1_not-json')).toBeUndefined();
  });
});

describe('mapAiSdkError', () => {
  const apiError = (statusCode: number | undefined, cause?: unknown) =>
    new APICallError({ message: 'vendor said no', url: 'http://127.0.0.1/x', requestBodyValues: {}, statusCode, responseBody: '{"error":{"message":"secret body"}}', cause, data: { error: { message: 'prompt is too long' } } });

  it.each([
    [429, 'rate_limited', true],
    [529, 'overloaded', true],
    [503, 'overloaded', true],
    [500, 'server_error', true],
    [401, 'authentication', false],
    [403, 'authentication', false],
    [404, 'not_found', false],
    [400, 'invalid_request', false],
    [422, 'invalid_request', false],
  ])('maps HTTP %i to %s', (status, kind, retryable) => {
    const error = mapAiSdkError(apiError(status), 'openai') as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect({ kind: error.kind, retryable: error.retryable, upstreamStatus: error.upstreamStatus, rawBody: error.rawBody }).toEqual({
      kind,
      retryable,
      upstreamStatus: status,
      rawBody: '{"error":{"message":"secret body"}}',
    });
    expect(error.publicMessage).not.toContain('secret body');
  });

  it.each([
    ['a connection reset', apiError(undefined, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), 'connection'],
    ['a refused connection', apiError(undefined, Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), 'connection'],
    ['an abort', new DOMException('aborted', 'AbortError'), 'timeout'],
    ['a headers timeout', Object.assign(new Error('timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'timeout'],
    ['unparseable JSON', new JSONParseError({ text: '{', cause: new SyntaxError('x') }), 'malformed_response'],
  ])('maps %s', (_name, thrown, kind) => {
    expect((mapAiSdkError(thrown, 'groq') as UpstreamError).kind).toBe(kind);
  });

  it('turns what the SDK refuses to send into an UnsupportedFeatureError naming the feature, so the next endpoint is tried', () => {
    const error = mapAiSdkError(new UnsupportedFunctionalityError({ functionality: 'PDF file parts with URLs' }), 'openai');
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect(error.publicMessage).toBe('Invalid request parameters: PDF file parts with URLs is not supported by openai');
  });
});
