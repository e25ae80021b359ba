import { describe, expect, it } from 'vitest';
import type { MessageParam } from '#src/api-types.ts';
import { compressMiddleOut, messageUnits, middleOutOrder } from '#src/plugins/middle-out.ts';

const text = (role: 'user' | 'assistant', label: string): MessageParam => ({ role, content: `${label} ${'.'.repeat(395 - label.length)}` });
const use = (id: string): MessageParam => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'lookup', input: {} }] });
const result = (...ids: string[]): MessageParam => ({ role: 'user', content: ids.map((id) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' })) });

describe('messageUnits', () => {
  it.each<[string, MessageParam[], [number, number][]]>([
    ['plain turns', [text('user', 'u'), text('assistant', 'a'), text('user', 'u')], [[0, 0], [1, 1], [2, 2]]],
    ['a tool call and its result', [text('user', 'u'), use('t1'), result('t1'), text('assistant', 'a')], [[0, 0], [1, 2], [3, 3]]],
    ['a result answered two turns later', [use('t1'), text('user', 'u'), text('assistant', 'a'), result('t1')], [[0, 3]]],
    ['overlapping pairs', [use('t1'), result('t1'), use('t2'), text('user', 'u'), result('t2')], [[0, 1], [2, 4]]],
    ['a result with no call', [text('user', 'u'), result('gone')], [[0, 0], [1, 1]]],
    ['nothing', [], []],
  ])('groups %s', (_case, messages, units) => {
    expect(messageUnits(messages).map((unit) => [unit.start, unit.end])).toEqual(units);
  });
});

describe('middleOutOrder', () => {
  it.each([
    [1, 6, [3, 2, 4, 1, 5, 6]],
    [1, 1, [1]],
    [2, 5, [3, 2, 4, 5]],
    [3, 2, []],
  ])('removes units %i..%i middle first, older side first', (first, last, order) => {
    expect(middleOutOrder(first, last)).toEqual(order);
  });
});

describe('compressMiddleOut', () => {
  const conversation = [text('user', 'u0'), text('assistant', 'a1'), text('user', 'u2'), use('t1'), result('t1'), text('assistant', 'a5'), text('user', 'u6')];
  const labels = (messages: MessageParam[]) =>
    messages.map((message) => {
      const content: unknown = message.content;
      return typeof content === 'string' ? content.split(' ')[0] : (content as { type: string }[])[0]?.type;
    });

  it('keeps everything when the budget allows', () => {
    const kept = compressMiddleOut({ messages: conversation }, 10_000);
    expect(kept.removed).toBe(0);
    expect(kept.messages).toEqual(conversation);
  });

  it('removes from the middle outwards, older side first, until the estimate fits', () => {
    // Units a1, u2, [use, result], a5 are removable; u2 (the middle) goes, then a1, and 300 tokens are left.
    const kept = compressMiddleOut({ messages: conversation }, 350);
    expect(labels(kept.messages)).toEqual(['u0', 'tool_use', 'tool_result', 'a5', 'u6']);
    expect(kept.removed).toBe(2);
    expect(kept.estimatedTokens).toBeLessThanOrEqual(350);
  });

  it('removes a tool call and its result together, never one without the other', () => {
    const kept = compressMiddleOut({ messages: conversation }, 250);
    expect(labels(kept.messages)).toEqual(['u0', 'u6']);
    expect(kept.removed).toBe(5);
  });

  it('stops at the head and the last turn when the budget cannot be met', () => {
    const kept = compressMiddleOut({ system: 'S'.repeat(4_000), messages: conversation }, 10);
    expect(labels(kept.messages)).toEqual(['u0', 'u6']);
    expect(kept.estimatedTokens).toBeGreaterThan(10);
  });

  it('keeps the latest user prompt that tool turns follow, removing the older tool turns around it', () => {
    const agent = [text('user', 'u0'), text('assistant', 'a1'), text('user', 'u2'), use('t1'), result('t1'), use('t2'), result('t2')];
    const kept = compressMiddleOut({ messages: agent }, 10);
    expect(labels(kept.messages)).toEqual(['u0', 'u2', 'tool_use', 'tool_result']);
    expect((kept.messages[2]?.content as { id: string }[])[0]?.id).toBe('t2');
  });

  it('keeps the question an assistant prefill continues', () => {
    const prefilled = [...conversation, text('assistant', 'a7')];
    expect(labels(compressMiddleOut({ messages: prefilled }, 10).messages)).toEqual(['u0', 'u6', 'a7']);
  });

  it('keeps leading system messages with the head', () => {
    const withSystem: MessageParam[] = [{ role: 'system', content: 'Be brief.' }, ...conversation];
    expect(labels(compressMiddleOut({ messages: withSystem }, 10).messages)).toEqual(['Be', 'u0', 'u6']);
  });
});
