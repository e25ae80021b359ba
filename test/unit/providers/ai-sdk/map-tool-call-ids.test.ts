import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { mapToolCallIds, restoreStreamToolCallId, restoreToolCallIds } from '#src/providers/ai-sdk/map-tool-call-ids.ts';

function conversation(...ids: string[]): LanguageModelV4Prompt {
  return [
    { role: 'user', content: [{ type: 'text', text: 'go' }] },
    { role: 'assistant', content: ids.map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'f', input: {} })) },
    { role: 'tool', content: ids.map((id) => ({ type: 'tool-result' as const, toolCallId: id, toolName: 'f', output: { type: 'text' as const, value: 'ok' } })) },
  ];
}

function idsOf(prompt: LanguageModelV4Prompt): { calls: string[]; results: string[] } {
  const calls = prompt.flatMap((message) => (message.role === 'assistant' ? message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])) : []));
  const results = prompt.flatMap((message) => (message.role === 'tool' ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])) : []));
  return { calls, results };
}

describe('mapToolCallIds', () => {
  it.each([
    ['an Anthropic id', 'toolu_01XFDUDYJgAACzvnptvVoYEL', true],
    ['an OpenAI id', 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', true],
    ['a short id with an underscore', 'call_1', true],
    ['a shorter alphanumeric id', 'abc123', true],
    ['a nine-character alphanumeric id (Mistral’s own)', 'gSIMJiOkT', false],
  ])('%s: replaced %s', (_name, id, replaced) => {
    const { prompt, toClient } = mapToolCallIds(conversation(id), 9);
    const { calls, results } = idsOf(prompt);
    expect(calls).toEqual(results);
    expect(calls[0]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(calls[0] !== id).toBe(replaced);
    expect(toClient.get(calls[0] as string)).toBe(replaced ? id : undefined);
  });

  it('maps the same id the same way every time, and different ids apart', () => {
    const first = idsOf(mapToolCallIds(conversation('toolu_a', 'toolu_b'), 9).prompt).calls;
    const again = idsOf(mapToolCallIds(conversation('toolu_b', 'toolu_a'), 9).prompt).calls;
    expect(again).toEqual([first[1], first[0]]);
    expect(new Set(first).size).toBe(2);
  });

  it('leaves the prompt as it is when every id is accepted, and never modifies its input', () => {
    const accepted = conversation('gSIMJiOkT');
    expect(mapToolCallIds(accepted, 9).prompt).toBe(accepted);
    const input = conversation('toolu_a');
    const before = structuredClone(input);
    mapToolCallIds(input, 9);
    expect(input).toEqual(before);
  });

  it('never gives a replaced id the value of an accepted id of the same conversation', () => {
    const taken = idsOf(mapToolCallIds(conversation('toolu_a'), 9).prompt).calls[0] as string;
    const { calls } = idsOf(mapToolCallIds(conversation(taken, 'toolu_a'), 9).prompt);
    expect(calls[0]).toBe(taken);
    expect(calls[1]).not.toBe(taken);
    expect(calls[1]).toMatch(/^[A-Za-z0-9]{9}$/);
  });
});

describe('restoring the client’s ids in the answer', () => {
  const toClient = new Map([['AbCdEfGh1', 'toolu_original']]);

  it.each<[string, LanguageModelV4StreamPart, LanguageModelV4StreamPart]>([
    ['tool-input-start', { type: 'tool-input-start', id: 'AbCdEfGh1', toolName: 'f' }, { type: 'tool-input-start', id: 'toolu_original', toolName: 'f' }],
    ['tool-input-delta', { type: 'tool-input-delta', id: 'AbCdEfGh1', delta: '{' }, { type: 'tool-input-delta', id: 'toolu_original', delta: '{' }],
    ['tool-input-end', { type: 'tool-input-end', id: 'AbCdEfGh1' }, { type: 'tool-input-end', id: 'toolu_original' }],
    ['tool-call', { type: 'tool-call', toolCallId: 'AbCdEfGh1', toolName: 'f', input: '{}' }, { type: 'tool-call', toolCallId: 'toolu_original', toolName: 'f', input: '{}' }],
    ['a new id of the vendor', { type: 'tool-call', toolCallId: 'NewOne123', toolName: 'f', input: '{}' }, { type: 'tool-call', toolCallId: 'NewOne123', toolName: 'f', input: '{}' }],
    ['text', { type: 'text-delta', id: 'AbCdEfGh1', delta: 'x' }, { type: 'text-delta', id: 'AbCdEfGh1', delta: 'x' }],
  ])('stream part %s', (_name, part, expected) => {
    expect(restoreStreamToolCallId(part, toClient)).toEqual(expected);
  });

  it('maps generated tool calls back and leaves other content', () => {
    const content: LanguageModelV4Content[] = [
      { type: 'text', text: 'AbCdEfGh1' },
      { type: 'tool-call', toolCallId: 'AbCdEfGh1', toolName: 'f', input: '{}' },
    ];
    expect(restoreToolCallIds(content, toClient)).toEqual([content[0], { ...content[1], toolCallId: 'toolu_original' }]);
    expect(restoreToolCallIds(content, new Map())).toBe(content);
  });
});
