import { describe, expect, it } from 'vitest';
import type { MessageParam, MessageRequest } from '#src/api-types.ts';
import { appendToUserTurn, fillPrompt, newUserPrompt, urlsInText } from '#src/plugins/web/prompt-context.ts';

describe('newUserPrompt', () => {
  const toolTurn: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'r' }] };
  it.each<[string, MessageParam[], { index: number; text: string } | null]>([
    ['a string turn', [{ role: 'user', content: '  tides? ' }], { index: 0, text: 'tides?' }],
    ['text blocks joined', [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }], { index: 0, text: 'a\nb' }],
    ['the prompt before an assistant prefill', [{ role: 'user', content: 'q' }, { role: 'assistant', content: '{' }], { index: 0, text: 'q' }],
    ['the prompt before system messages', [{ role: 'user', content: 'q' }, { role: 'system', content: 's' }], { index: 0, text: 'q' }],
    ['text sent with tool results', [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'x' }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'r' }, { type: 'text', text: 'and now?' }] }], { index: 2, text: 'and now?' }],
    ['no prompt in a turn of tool results alone', [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'x' }, toolTurn], null],
    ['no prompt when the last turn is not the user\'s', [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'x' }, { role: 'assistant', content: 'y' }], null],
    ['no user text', [{ role: 'assistant', content: 'x' }], null],
  ])('finds %s', (_case, messages, expected) => {
    expect(newUserPrompt(messages)).toEqual(expected);
  });
});

describe('appendToUserTurn', () => {
  const request = (content: MessageParam['content']): MessageRequest => ({ model: 'm/x', max_tokens: 1, messages: [{ role: 'user', content } as MessageParam] });
  it('turns string content into a text block and appends after it', () => {
    expect(appendToUserTurn(request('q'), 0, 'ctx').messages[0]?.content).toEqual([{ type: 'text', text: 'q' }, { type: 'text', text: 'ctx' }]);
  });
  it('appends after the blocks, leaving their positions and the original request alone', () => {
    const original = request([{ type: 'text', text: 'q' }]);
    expect(appendToUserTurn(original, 0, 'ctx').messages[0]?.content).toEqual([{ type: 'text', text: 'q' }, { type: 'text', text: 'ctx' }]);
    expect(original.messages[0]?.content).toEqual([{ type: 'text', text: 'q' }]);
  });
});

describe('urlsInText', () => {
  it.each([
    ['Read https://example.com/a.', ['https://example.com/a']],
    ['(see http://x.test/p?q=1) and https://example.com/a, https://example.com/a!', ['http://x.test/p?q=1', 'https://example.com/a']],
    ['<https://example.com/b> "https://example.com/c"', ['https://example.com/b', 'https://example.com/c']],
    ['ftp://nope and www.example.com', []],
  ])('finds the URLs in %j', (text, urls) => {
    expect(urlsInText(text)).toEqual(urls);
  });
});

describe('fillPrompt', () => {
  it('puts the UTC date in place of {date}', () => {
    expect(fillPrompt('Searched on {date}; {date}.', new Date('2026-03-14T23:30:00Z'))).toBe('Searched on 2026-03-14; 2026-03-14.');
  });
});
