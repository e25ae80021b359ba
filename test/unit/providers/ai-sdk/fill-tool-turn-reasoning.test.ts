import { describe, expect, it } from 'vitest';
import { fillToolTurnReasoning } from '#src/providers/ai-sdk/fill-tool-turn-reasoning.ts';

const user = (content: string) => ({ role: 'user', content });
const call = { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } };
const tool = { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' };

describe('fillToolTurnReasoning', () => {
  it.each<[string, Record<string, unknown>[], (string | undefined)[]]>([
    ['a call without reasoning: empty', [user('q'), { role: 'assistant', content: null, tool_calls: [call] }, tool], ['']],
    ['a call with reasoning: kept', [user('q'), { role: 'assistant', content: null, reasoning_content: 'think', tool_calls: [call] }, tool], ['think']],
    ['the answer after the call, same turn: empty too', [user('q'), { role: 'assistant', content: null, tool_calls: [call] }, tool, { role: 'assistant', content: 'Sunny.' }, user('next')], ['', '']],
    ['a turn without calls: left alone', [user('hi'), { role: 'assistant', content: 'Hello.' }, user('again')], [undefined]],
    [
      'only the turn that called tools',
      [user('hi'), { role: 'assistant', content: 'Hello.' }, user('q'), { role: 'assistant', content: null, tool_calls: [call] }, tool],
      [undefined, ''],
    ],
    ['empty tool_calls: no call', [user('q'), { role: 'assistant', content: 'x', tool_calls: [] }], [undefined]],
  ])('%s', (_name, messages, reasoning) => {
    const body = fillToolTurnReasoning({ model: 'deepseek-reasoner', messages });
    const assistants = (body.messages as Record<string, unknown>[]).filter((message) => message.role === 'assistant');
    expect(assistants.map((message) => message.reasoning_content)).toEqual(reasoning);
  });

  it('leaves a body without messages as it is', () => {
    expect(fillToolTurnReasoning({ input: 'x' })).toEqual({ input: 'x' });
  });
});
