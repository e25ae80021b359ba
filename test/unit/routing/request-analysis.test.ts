import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { requestMedia, requestText, systemText, usedParameters } from '#src/routing/request-parameters.ts';
import { estimateDifficulty } from '#src/routing/auto-router/prompt-difficulty.ts';
import { estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { request } from '#test/unit/routing/plan-fixtures.ts';

const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AAAA' } };
const pdf = { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: 'AAAA' } };
const textDocument = { type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'plain' } };
const contentDocument = { type: 'document' as const, source: { type: 'content' as const, content: [{ type: 'text' as const, text: 'a' }, image, image] } };
const textContentDocument = { type: 'document' as const, source: { type: 'content' as const, content: 'plain' } };

describe('usedParameters', () => {
  it.each<[string, Partial<MessageRequest>, string[]]>([
    ['a plain request', {}, []],
    ['tools', { tools: [{ name: 'a', input_schema: {} }] }, ['tools']],
    ['an empty tools list', { tools: [] }, []],
    ['tool_choice', { tool_choice: { type: 'auto' } }, ['tool_choice']],
    ['thinking enabled', { thinking: { type: 'enabled', budget_tokens: 2_000 } }, ['thinking']],
    ['thinking adaptive', { thinking: { type: 'adaptive' } }, ['thinking']],
    ['thinking disabled', { thinking: { type: 'disabled' } }, []],
    ['an image', { messages: [{ role: 'user', content: [image] }] }, ['images']],
    ['an image inside a tool result', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [image] }] }] }, ['images']],
    ['a PDF', { messages: [{ role: 'user', content: [pdf] }] }, ['pdf']],
    ['a plain-text document', { messages: [{ role: 'user', content: [textDocument] }] }, []],
    ['a content document holding images', { messages: [{ role: 'user', content: [contentDocument] }] }, ['images']],
    ['a content document holding images inside a tool result', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [contentDocument] }] }] }, ['images']],
    ['a content document of text', { messages: [{ role: 'user', content: [textContentDocument] }] }, []],
    ['structured output', { output_config: { format: { type: 'json_schema', schema: {} } } }, ['structured_output']],
    ['stop sequences', { stop_sequences: ['END'] }, ['stop_sequences']],
    ['sampling', { temperature: 0, top_p: 0.9, top_k: 5 }, ['temperature', 'top_p', 'top_k']],
    ['a cache marker is not a requirement', { cache_control: { type: 'ephemeral' } }, []],
  ])('%s', (_name, overrides, expected) => {
    expect(usedParameters(request(overrides))).toEqual(expected);
  });

  it('counts media', () => {
    expect(requestMedia(request({ messages: [{ role: 'user', content: [image, image, pdf, textDocument, contentDocument] }] }))).toEqual({ images: 4, pdfs: 1 });
  });
});

describe('prompt size and difficulty', () => {
  it.each<[string, Partial<MessageRequest>, number, string]>([
    ['a greeting', {}, 0, 'easy'],
    ['a medium-length prompt', { messages: [{ role: 'user', content: 'word '.repeat(800) }] }, 1 / 8, 'easy'],
    ['code', { messages: [{ role: 'user', content: 'fix ```let x = 1```' }] }, 1 / 8, 'easy'],
    ['one reasoning word', { messages: [{ role: 'user', content: 'please debug this' }] }, 1 / 8, 'easy'],
    ['three reasoning words', { messages: [{ role: 'user', content: 'prove the theorem step by step' }] }, 2 / 8, 'medium'],
    ['thinking', { thinking: { type: 'enabled', budget_tokens: 2_000 } }, 2 / 8, 'medium'],
    ['high effort', { output_config: { effort: 'high' } }, 1 / 8, 'easy'],
    ['five tools', { tools: Array.from({ length: 5 }, (_unused, index) => ({ name: `t${index}`, input_schema: {} })) }, 2 / 8, 'medium'],
    ['a very long prompt with code and thinking', { thinking: { type: 'adaptive' }, messages: [{ role: 'user', content: '```' + 'y'.repeat(140_000) }] }, 6 / 8, 'hard'],
  ])('%s', (_name, overrides, score, label) => {
    const difficulty = estimateDifficulty(request(overrides));
    expect(difficulty.score).toBeCloseTo(score);
    expect(difficulty.label).toBe(label);
  });

  it('caps the score at 1', () => {
    const everything = request({
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      output_config: { effort: 'max' },
      tools: Array.from({ length: 6 }, (_unused, index) => ({ name: `t${index}`, input_schema: {} })),
      messages: [{ role: 'user', content: `prove, derive, optimize ${'```'} ${'z'.repeat(200_000)}` }],
    });
    expect(estimateDifficulty(everything).score).toBe(1);
  });
});

describe('system messages inside the conversation', () => {
  const conversation = request({
    system: 'Top.',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Lead.' }] },
      { role: 'user', content: 'please debug this' },
      { role: 'system', content: 'Mid: prove the theorem step by step.' },
      { role: 'critic_20270101', content: { opaque: true } } as unknown as MessageRequest['messages'][number],
    ],
  });

  it('the system prompt is the top-level system and the leading system messages, not the later ones', () => {
    expect(systemText(conversation)).toBe('Top.\nLead.');
    expect(systemText(request({ messages: [{ role: 'system', content: 'Only.' }, { role: 'user', content: 'hi' }] }))).toBe('Only.');
  });

  it('all their text counts toward the prompt size, and an unknown role is read without failing', () => {
    expect(requestText(conversation)).toContain('Mid: prove the theorem step by step.');
    expect(estimateInputTokens(conversation)).toBeGreaterThan(0);
  });

  it('the reasoning words of the last user turn count, not those of a system turn after it', () => {
    expect(estimateDifficulty(conversation).signals).toContain('reasoning words: debug');
  });
});
