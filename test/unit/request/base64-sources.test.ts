import { describe, expect, it } from 'vitest';
import { base64Problem } from '#src/request/base64-sources.ts';

describe('base64Problem', () => {
  it.each([
    ['padded standard base64', 'iVBORw0KGgo='],
    ['two padding characters', 'JVBERg=='],
    ['no padding', 'iVBORw0KGgo'],
    ['the URL-safe alphabet', 'ab-_cd=='],
    ['line breaks and spaces (MIME style)', 'iVBO\r\nRw0K Ggo='],
    ['padding followed by white space', 'iVBORw0KGgo=\n'],
  ])('accepts %s', (_label, data) => {
    expect(base64Problem(data)).toBeUndefined();
  });

  it.each([
    ['an empty text', '', 'is empty'],
    ['only white space', ' \n ', 'is empty'],
    ['a data: URL', 'data:image/png;base64,iVBORw0KGgo=', 'is a data: URL, not base64 text: send only the text after `base64,`'],
    ['a character outside both alphabets', 'abc.def=', 'is not base64: it holds "." (character 4), which base64 does not use'],
    ['a placeholder text', '[image missing]', 'is not base64: it holds "[" (character 1), which base64 does not use'],
    ['padding inside', 'ab=cd===', 'is not base64: `=` (padding) may only end it, at most twice'],
    ['three padding characters', 'ab===', 'is not base64: `=` (padding) may only end it, at most twice'],
    ['one character too many', 'iVBORw0KG', 'is not base64: 9 base64 characters encode no byte sequence (the text is cut short or has one character too many)'],
  ])('refuses %s', (_label, data, problem) => {
    expect(base64Problem(data)).toBe(problem);
  });
});
