import { describe, expect, it } from 'vitest';
import type { MessageParam } from '#src/api-types.ts';
import { contentBlocks, isKnownRole, leadingSystemMessages, stringContent, systemContentText } from '#src/request/message-content.ts';

const text = { type: 'text' as const, text: 'a' };
const message = (value: unknown) => value as MessageParam;

describe('reading messages of any role', () => {
  it.each([
    ['user blocks', message({ role: 'user', content: [text] }), [text], undefined, true],
    ['assistant string', message({ role: 'assistant', content: 'hi' }), [], 'hi', true],
    ['system blocks', message({ role: 'system', content: [text] }), [text], undefined, true],
    ['system without content', message({ role: 'system' }), [], undefined, true],
    ['an unknown role, its block-like items only', message({ role: 'critic_20270101', content: [text, 'x', null, { type: 7 }] }), [text], undefined, false],
    ['an unknown role with other content', message({ role: 'critic_20270101', content: { opaque: true } }), [], undefined, false],
  ])('%s', (_name, value, blocks, string, known) => {
    expect(contentBlocks(value)).toEqual(blocks);
    expect(stringContent(value)).toBe(string);
    expect(isKnownRole(value)).toBe(known);
  });

  it('the leading system messages end at the first message of another role', () => {
    const lead = message({ role: 'system', content: 'one' });
    const messages = [lead, message({ role: 'user', content: 'hi' }), message({ role: 'system', content: 'later' })];
    expect(leadingSystemMessages(messages)).toEqual([lead]);
    expect(leadingSystemMessages([message({ role: 'critic_20270101' }), lead])).toEqual([]);
  });

  it('system text joins text blocks and skips others', () => {
    expect(systemContentText([text, { type: 'future_block_20270101' } as never, { type: 'text', text: 'b' }])).toBe('a\nb');
    expect(systemContentText('plain')).toBe('plain');
    expect(systemContentText(undefined)).toBe('');
  });
});
