import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { fitToContext, promptBudget } from '#src/plugins/context-fit.ts';

// Four turns of 100 tokens each (400 characters): 400 tokens in all.
const turn = (role: 'user' | 'assistant', label: string) => ({ role, content: `${label}${'.'.repeat(400 - label.length)}` });
const request = (maxTokens: number): MessageRequest => ({ model: 'm/x', max_tokens: maxTokens, messages: [turn('user', 'u0'), turn('assistant', 'a1'), turn('user', 'u2'), turn('assistant', 'a3'), turn('user', 'u4')] });

describe('promptBudget', () => {
  it.each([
    [1000, 100, 900],
    [1000, 800, 500],
    [1000, 1, 999],
  ])('context %i with max_tokens %i leaves %i for the prompt', (context, maxTokens, budget) => {
    expect(promptBudget(context, maxTokens)).toBe(budget);
  });
});

describe('fitToContext', () => {
  it.each<[string, number | null, boolean, number, { kind: string; messagesRemoved: number }]>([
    ['unknown context length', null, false, 100, { kind: 'fits', messagesRemoved: 0 }],
    ['a prompt within the context, without compression', 600, false, 100, { kind: 'fits', messagesRemoved: 0 }],
    ['a prompt over the context, without compression', 450, false, 100, { kind: 'too-long', messagesRemoved: 0 }],
    ['a prompt within the context but not its room for the answer, without compression', 550, false, 300, { kind: 'fits', messagesRemoved: 0 }],
    ['a prompt within the budget, with compression', 1000, true, 100, { kind: 'fits', messagesRemoved: 0 }],
    ['a prompt over the budget, with compression', 450, true, 100, { kind: 'compressed', messagesRemoved: 2 }],
    ['a prompt that cannot fit even compressed', 150, true, 10, { kind: 'too-long', messagesRemoved: 3 }],
  ])('%s', (_case, contextLength, compress, maxTokens, expected) => {
    expect(fitToContext({ request: request(maxTokens), contextLength, compress })).toMatchObject(expected);
  });

  it('gives the compressed request its estimate and leaves the original untouched', () => {
    const original = request(100);
    const fit = fitToContext({ request: original, contextLength: 450, compress: true });
    expect(fit.kind).toBe('compressed');
    if (fit.kind !== 'compressed') return;
    expect(fit.request.messages.map((message) => String(message.content).slice(0, 2))).toEqual(['u0', 'a3', 'u4']);
    expect(fit.estimatedTokens).toBe(300);
    expect(original.messages).toHaveLength(5);
  });

  it('uses an estimate given rather than measuring again', () => {
    expect(fitToContext({ request: request(100), contextLength: 450, compress: false, estimatedTokens: 10 })).toMatchObject({ kind: 'fits', estimatedTokens: 10 });
  });
});
