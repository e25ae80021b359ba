import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { placeTopLevelCacheBreakpoint } from '#src/messages/prompt-cache.ts';
import { MAX_CACHE_BREAKPOINTS, assertCacheBreakpointLimit, countCacheBreakpoints } from '#src/request/cache-breakpoint-count.ts';

const marker = { type: 'ephemeral' as const };
const hourMarker = { type: 'ephemeral' as const, ttl: '1h' as const };

function request(fields: Record<string, unknown>): MessageRequest {
  return { model: 'anthropic/claude-sonnet-4.5', max_tokens: 100, ...fields } as MessageRequest;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Places the breakpoint on a frozen request, so any mutation of the input throws. */
function place(fields: Record<string, unknown>): MessageRequest {
  const input = deepFreeze(request(fields));
  const before = structuredClone(input);
  const placed = placeTopLevelCacheBreakpoint(input);
  expect(input).toEqual(before);
  expect(placed).not.toHaveProperty('cache_control');
  return placed;
}

const toolResultWithMarkers = (count: number) => ({
  type: 'tool_result',
  tool_use_id: 'toolu_1',
  content: Array.from({ length: count }, (_unused, index) => ({ type: 'text', text: `part ${index}`, cache_control: marker })),
});

describe('placeTopLevelCacheBreakpoint', () => {
  it('returns the very request when it has no top-level cache_control', () => {
    const input = request({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(placeTopLevelCacheBreakpoint(input)).toBe(input);
  });

  it('turns string content of the last message into a marked text block', () => {
    const placed = place({ cache_control: hourMarker, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(placed).toEqual(request({ system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: hourMarker }] }] }));
  });

  it('marks the last block of the last message and leaves earlier blocks alone', () => {
    const placed = place({
      cache_control: marker,
      messages: [
        { role: 'user', content: 'Question one' },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '42' }, { type: 'text', text: 'And?' }] },
      ],
    });
    expect(placed.messages).toEqual([
      { role: 'user', content: 'Question one' },
      { role: 'assistant', content: [{ type: 'text', text: 'Answer' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '42' }, { type: 'text', text: 'And?', cache_control: marker }] },
    ]);
  });

  it('skips thinking blocks and marks the last block that can carry a breakpoint', () => {
    const placed = place({
      cache_control: marker,
      messages: [
        { role: 'user', content: 'Sum?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me see.' },
            { type: 'thinking', thinking: 'add', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
          ],
        },
      ],
    });
    expect(placed.messages[1]?.content).toEqual([
      { type: 'text', text: 'Let me see.', cache_control: marker },
      { type: 'thinking', thinking: 'add', signature: 'sig' },
      { type: 'redacted_thinking', data: 'opaque' },
    ]);
  });

  it('goes back to an earlier message when the last one has nothing cacheable', () => {
    const placed = place({
      cache_control: marker,
      messages: [
        { role: 'user', content: 'Sum?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'add', signature: 'sig' }] },
        { role: 'user', content: '' },
      ],
    });
    expect(placed.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Sum?', cache_control: marker }] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'add', signature: 'sig' }] },
      { role: 'user', content: '' },
    ]);
  });

  it('falls back to the last system block when no message block can carry it', () => {
    const placed = place({
      cache_control: marker,
      system: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }],
      messages: [{ role: 'user', content: '' }],
    });
    expect(placed.system).toEqual([{ type: 'text', text: 'One' }, { type: 'text', text: 'Two', cache_control: marker }]);
  });

  it('adds nothing when the last cacheable block already has a breakpoint', () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: hourMarker }] }];
    const placed = place({ cache_control: marker, messages });
    expect(placed.messages).toEqual(messages);
    expect(countCacheBreakpoints(placed)).toBe(1);
  });

  it(`adds the breakpoint while the request has fewer than ${MAX_CACHE_BREAKPOINTS}`, () => {
    const placed = place({
      cache_control: marker,
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: marker }],
      system: [{ type: 'text', text: 'Sys', cache_control: marker }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Earlier', cache_control: marker }] },
        { role: 'assistant', content: 'Ok' },
        { role: 'user', content: 'Now' },
      ],
    });
    expect(countCacheBreakpoints(placed)).toBe(4);
    expect(placed.messages[2]?.content).toEqual([{ type: 'text', text: 'Now', cache_control: marker }]);
  });

  it(`adds nothing when the request already has ${MAX_CACHE_BREAKPOINTS} breakpoints`, () => {
    const fields = {
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: marker }],
      system: [{ type: 'text', text: 'Sys', cache_control: marker }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'A', cache_control: marker }, { type: 'text', text: 'B', cache_control: marker }] },
        { role: 'assistant', content: 'Ok' },
        { role: 'user', content: 'Now' },
      ],
    };
    const placed = place({ cache_control: marker, ...fields });
    expect(placed).toEqual(request(fields));
  });

  it('marks a trailing system message, turning its string content into a marked text block', () => {
    const placed = place({ cache_control: marker, messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'From now on, French.' }] });
    expect(placed.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: [{ type: 'text', text: 'From now on, French.', cache_control: marker }] },
    ]);
  });

  it('never marks a block type or role it does not know, and goes back to one it does', () => {
    const placed = place({
      cache_control: marker,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'future_block_20270101', payload: 1 }] },
        { role: 'critic_20270101', content: 'Be harsh.' },
        { role: 'system' },
      ],
    });
    expect(placed.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Look', cache_control: marker }, { type: 'future_block_20270101', payload: 1 }] },
      { role: 'critic_20270101', content: 'Be harsh.' },
      { role: 'system' },
    ]);
  });

  it('counts breakpoints inside tool results toward the limit', () => {
    const fields = {
      messages: [
        { role: 'user', content: 'Run it' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
        { role: 'user', content: [toolResultWithMarkers(4), { type: 'text', text: 'Go on' }] },
      ],
    };
    expect(countCacheBreakpoints(request(fields))).toBe(4);
    expect(place({ cache_control: marker, ...fields })).toEqual(request(fields));
  });
});

describe('countCacheBreakpoints', () => {
  it.each([
    ['none', { messages: [{ role: 'user', content: 'Hi' }] }, 0],
    ['a null marker', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: null }] }] }, 0],
    ['tools, system and message blocks', { tools: [{ name: 't', input_schema: {}, cache_control: marker }], system: [{ type: 'text', text: 's', cache_control: marker }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: marker }] }] }, 3],
    ['tool result blocks and their content', { messages: [{ role: 'user', content: [{ ...toolResultWithMarkers(2), cache_control: marker }] }] }, 3],
    ['system messages inside the conversation', { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: [{ type: 'text', text: 'a', cache_control: marker }, { type: 'text', text: 'b', cache_control: marker }] }] }, 2],
    ['blocks of unknown types and roles', { messages: [{ role: 'user', content: [{ type: 'future_block_20270101', cache_control: marker }] }, { role: 'critic_20270101', content: [{ type: 'text', text: 'c', cache_control: marker }, 'not a block'] }] }, 2],
  ])('counts %s', (_name, fields, count) => {
    expect(countCacheBreakpoints(request(fields))).toBe(count);
  });
});

describe('assertCacheBreakpointLimit', () => {
  it('refuses a fifth marker, wherever it is, with the count', () => {
    const marked = (text: string) => ({ type: 'text', text, cache_control: marker });
    const fields = { system: [marked('1'), marked('2')], messages: [{ role: 'user', content: [marked('3')] }, { role: 'system', content: [marked('4')] }, { role: 'user', content: [marked('5')] }] };
    expect(() => assertCacheBreakpointLimit(request(fields))).toThrow('at most 4 blocks may carry cache_control, found 5');
    expect(() => assertCacheBreakpointLimit(request({ ...fields, messages: fields.messages.slice(0, 2) }))).not.toThrow();
  });
});
