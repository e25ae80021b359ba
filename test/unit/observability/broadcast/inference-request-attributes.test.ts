/**
 * The request values every inference span of a generation shares: which the request has, and the reasoning
 * level and output type as the GenAI conventions name them.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { inferenceRequest } from '#src/observability/broadcast/inference-request-attributes.ts';

const base = { model: 'test/m', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] };

describe('inferenceRequest', () => {
  it.each<[string, Record<string, unknown>, Partial<ReturnType<typeof inferenceRequest>>]>([
    ['nothing but max_tokens', {}, { maxTokens: 32, temperature: undefined, topP: undefined, topK: undefined, stopSequences: undefined, reasoningLevel: undefined, outputType: undefined }],
    ['the top-level effort, as sent', { output_config: { effort: 'xhigh' } }, { reasoningLevel: 'xhigh' }],
    [
      "a system message's effort over the top-level one (Claude Code's per-message effort)",
      { output_config: { effort: 'low' }, messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: [], output_config: { effort: 'max' } }] },
      { reasoningLevel: 'max' },
    ],
    ['a thinking budget alone: no level (the conventions have no budget attribute)', { thinking: { type: 'enabled', budget_tokens: 2048 } }, { reasoningLevel: undefined }],
    ['a null effort: no level', { output_config: { effort: null } }, { reasoningLevel: undefined }],
    ['a JSON schema format: json', { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } }, { outputType: 'json' }],
    ['a format type the gateway does not read: none', { output_config: { format: { type: 'grammar_20270101' } } }, { outputType: undefined }],
    ['a null format: none', { output_config: { format: null } }, { outputType: undefined }],
    ['stop sequences, strings only', { stop_sequences: ['END', 3] }, { stopSequences: ['END'] }],
    ['sampling parameters', { temperature: 0, top_p: 1, top_k: 5 }, { temperature: 0, topP: 1, topK: 5 }],
  ])('%s', (_label, fields, expected) => {
    expect(inferenceRequest({ ...base, ...fields } as unknown as MessageRequest, false, null)).toMatchObject(expected);
  });

  it('takes the stream flag and the session id as given', () => {
    expect(inferenceRequest(base as unknown as MessageRequest, true, 'session-9')).toMatchObject({ stream: true, conversationId: 'session-9' });
  });
});
