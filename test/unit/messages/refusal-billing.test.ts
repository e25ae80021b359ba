/**
 * Whether the upstream bills a refused call: Anthropic's "How refusals are billed", read where its refusal
 * reaches the gateway, and a prompt a vendor's filter refused before its model ran (Bedrock's guardrail).
 */
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_REFUSAL_BILLING, answerRefusalBilled, contentHasOutput, refusalBilled, refusalCategoryOf, type RefusalBillingInput } from '#src/messages/refusal-billing.ts';
import { markedBlockedBeforeModel } from '#src/providers/refusal-before-model.ts';
import type { ResponseContentBlock } from '#src/api-types.ts';

describe('refusalBilled', () => {
  it.each<[string, RefusalBillingInput, boolean]>([
    ['Anthropic, before any output, cyber (not a billed category)', { family: 'anthropic', category: 'cyber', outputBegan: false }, false],
    ['Anthropic, before any output, general_harms', { family: 'anthropic', category: 'general_harms', outputBegan: false }, false],
    ['Anthropic, before any output, no category', { family: 'anthropic', category: null, outputBegan: false }, false],
    ['Anthropic, before any output, a category it may add later', { family: 'anthropic', category: 'new_area', outputBegan: false }, false],
    ['Anthropic, before any output, bio (billed category)', { family: 'anthropic', category: 'bio', outputBegan: false }, true],
    ['Anthropic, before any output, frontier_llm', { family: 'anthropic', category: 'frontier_llm', outputBegan: false }, true],
    ['Anthropic, before any output, reasoning_extraction', { family: 'anthropic', category: 'reasoning_extraction', outputBegan: false }, true],
    ['Anthropic, after output began, cyber', { family: 'anthropic', category: 'cyber', outputBegan: true }, true],
    ['Anthropic, after output began, no category', { family: 'anthropic', category: null, outputBegan: true }, true],
    ['Bedrock (Converse: no Anthropic category), before any output', { family: 'bedrock', category: null, outputBegan: false }, true],
    ['Bedrock, its guardrail refused the prompt (its blocked message is the text)', { family: 'bedrock', category: null, outputBegan: true, blockedBeforeModel: true }, false],
    ['Bedrock, not marked as refused before the model ran', { family: 'bedrock', category: null, outputBegan: true, blockedBeforeModel: false }, true],
    ['Google, before any output', { family: 'google', category: null, outputBegan: false }, true],
    ['OpenAI chat, before any output, cyber', { family: 'openai-chat', category: 'cyber', outputBegan: false }, true],
    ['Azure, after output began', { family: 'azure', category: null, outputBegan: true }, true],
  ])('%s: billed %s', (_case, input, billed) => {
    expect(refusalBilled(input)).toBe(billed);
  });
});

describe('contentHasOutput', () => {
  const block = (type: string) => ({ type }) as Pick<ResponseContentBlock, 'type'>;
  it.each<[string, string[], boolean]>([
    ['no block', [], false],
    ['a fallback block only (an upstream hop)', ['fallback'], false],
    ['text', ['text'], true],
    ['thinking', ['thinking'], true],
    ['a tool call', ['tool_use'], true],
    ['a hop, then text', ['fallback', 'text'], true],
  ])('%s: %s', (_case, types, has) => {
    expect(contentHasOutput(types.map(block))).toBe(has);
  });
});

describe('refusalCategoryOf', () => {
  it.each<[string, { category?: unknown } | null | undefined, string | null]>([
    ['a named category', { category: 'cyber' }, 'cyber'],
    ['a null category', { category: null }, null],
    ['no details', null, null],
    ['absent details', undefined, null],
    ['a category not a string', { category: 3 }, null],
  ])('%s', (_case, details, category) => {
    expect(refusalCategoryOf(details)).toBe(category);
  });
});

describe('answerRefusalBilled', () => {
  it('reads an empty cyber refusal from Anthropic as unbilled, and the same with a text block as billed', () => {
    const details = { type: 'refusal', category: 'cyber', explanation: null };
    expect(answerRefusalBilled('anthropic', { content: [], stop_details: details })).toBe(false);
    expect(answerRefusalBilled('anthropic', { content: [{ type: 'text' }], stop_details: details })).toBe(true);
    expect(answerRefusalBilled('openai-compatible', { content: [], stop_details: details })).toBe(true);
  });
});

describe('the sources', () => {
  it('says where and when Anthropic\'s table was read, in checkable forms', () => {
    expect(ANTHROPIC_REFUSAL_BILLING.source).toMatch(/^https:\/\/platform\.claude\.com\/docs\//);
    expect(ANTHROPIC_REFUSAL_BILLING.readOn).toMatch(/^\d{4}-\d{2}$/);
    expect(ANTHROPIC_REFUSAL_BILLING.checkedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(ANTHROPIC_REFUSAL_BILLING.checkedOn >= ANTHROPIC_REFUSAL_BILLING.readOn).toBe(true);
  });
});

describe('a marked refusal in a JSON answer', () => {
  it('is not billed, though its content shows the guardrail\'s text; JSON leaves the mark out', () => {
    const details = markedBlockedBeforeModel({ type: 'refusal' as const, category: null, explanation: 'Amazon Bedrock stopped the answer with its content filter (guardrail_intervened).' });
    expect(answerRefusalBilled('bedrock', { content: [{ type: 'text' }], stop_details: details })).toBe(false);
    expect(JSON.parse(JSON.stringify(details))).toEqual({ type: 'refusal', category: null, explanation: details.explanation });
  });
});
