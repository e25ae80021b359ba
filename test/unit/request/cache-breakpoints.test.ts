import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import {
  MAX_CACHE_BREAKPOINTS,
  assertCacheBreakpointLimit,
  countCacheBreakpoints,
  isCacheableBlock,
  placeTopLevelCacheBreakpoint,
  planCacheBreakpoints,
} from '#src/request/cache-breakpoints.ts';

const marker = { type: 'ephemeral' as const };
const hourMarker = { type: 'ephemeral' as const, ttl: '1h' as const };
const marked = (text: string, control: object = marker) => ({ type: 'text', text, cache_control: control });

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
  return placed as MessageRequest;
}

const toolResultWithMarkers = (count: number) => ({
  type: 'tool_result',
  tool_use_id: 'toolu_1',
  content: Array.from({ length: count }, (_unused, index) => marked(`part ${index}`)),
});

describe('isCacheableBlock', () => {
  it.each([
    ['text', { type: 'text', text: 'a' }, true],
    ['empty text', { type: 'text', text: '' }, false],
    ['image', { type: 'image' }, true],
    ['document', { type: 'document' }, true],
    ['tool_use', { type: 'tool_use' }, true],
    ['tool_result', { type: 'tool_result' }, true],
    ['search_result', { type: 'search_result' }, true],
    ['server_tool_use', { type: 'server_tool_use' }, true],
    ['a server tool result', { type: 'web_search_tool_result' }, true],
    ['thinking', { type: 'thinking' }, false],
    ['redacted_thinking', { type: 'redacted_thinking' }, false],
    ['an unknown block type', { type: 'future_block_20270101' }, false],
  ])('%s -> %s', (_name, block, cacheable) => {
    expect(isCacheableBlock(block)).toBe(cacheable);
  });
});

describe('placeTopLevelCacheBreakpoint: where the top-level marker lands', () => {
  it('returns the very request when it has no top-level cache_control', () => {
    const input = request({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(placeTopLevelCacheBreakpoint(input)).toBe(input);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'string content of the last message becomes a marked text block',
      { cache_control: hourMarker, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
      { system: 'Be brief.', messages: [{ role: 'user', content: [marked('Hi', hourMarker)] }] },
    ],
    [
      'the last block of the last message, earlier blocks untouched',
      {
        cache_control: marker,
        messages: [
          { role: 'user', content: 'Question one' },
          { role: 'assistant', content: [{ type: 'text', text: 'Answer' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '42' }, { type: 'text', text: 'And?' }] },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'Question one' },
          { role: 'assistant', content: [{ type: 'text', text: 'Answer' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '42' }, marked('And?')] },
        ],
      },
    ],
    [
      'past thinking blocks, to the last block that can carry a breakpoint',
      {
        cache_control: marker,
        messages: [
          { role: 'user', content: 'Sum?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Let me see.' }, { type: 'thinking', thinking: 'add', signature: 'sig' }, { type: 'redacted_thinking', data: 'opaque' }] },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'Sum?' },
          { role: 'assistant', content: [marked('Let me see.'), { type: 'thinking', thinking: 'add', signature: 'sig' }, { type: 'redacted_thinking', data: 'opaque' }] },
        ],
      },
    ],
    [
      'an earlier message when the last ones hold nothing cacheable (thinking, empty text, empty string)',
      {
        cache_control: marker,
        messages: [
          { role: 'user', content: 'Sum?' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'add', signature: 'sig' }] },
          { role: 'user', content: [{ type: 'text', text: '' }] },
          { role: 'user', content: '' },
        ],
      },
      {
        messages: [
          { role: 'user', content: [marked('Sum?')] },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'add', signature: 'sig' }] },
          { role: 'user', content: [{ type: 'text', text: '' }] },
          { role: 'user', content: '' },
        ],
      },
    ],
    [
      'the last system block when no message block can carry it',
      { cache_control: marker, system: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }], messages: [{ role: 'user', content: '' }] },
      { system: [{ type: 'text', text: 'One' }, marked('Two')], messages: [{ role: 'user', content: '' }] },
    ],
    [
      'a string system prompt, as one marked text block',
      { cache_control: marker, system: 'Be brief.', messages: [{ role: 'user', content: '' }] },
      { system: [marked('Be brief.')], messages: [{ role: 'user', content: '' }] },
    ],
    [
      'the last tool the upstream receives, when nothing else is cacheable',
      { cache_control: marker, tools: [{ name: 'a', input_schema: {} }, { type: 'gateway:web_fetch' }], messages: [{ role: 'user', content: '' }] },
      { tools: [{ name: 'a', input_schema: {}, cache_control: marker }, { type: 'gateway:web_fetch' }], messages: [{ role: 'user', content: '' }] },
    ],
    [
      'a trailing system message, its string content a marked text block',
      { cache_control: marker, messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'From now on, French.' }] },
      { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: [marked('From now on, French.')] }] },
    ],
    [
      'never a block type or role the gateway does not know',
      {
        cache_control: marker,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'future_block_20270101', payload: 1 }] },
          { role: 'critic_20270101', content: 'Be harsh.' },
          { role: 'system' },
        ],
      },
      {
        messages: [
          { role: 'user', content: [marked('Look'), { type: 'future_block_20270101', payload: 1 }] },
          { role: 'critic_20270101', content: 'Be harsh.' },
          { role: 'system' },
        ],
      },
    ],
    [
      'nothing when nothing is cacheable',
      { cache_control: marker, messages: [{ role: 'user', content: '' }] },
      { messages: [{ role: 'user', content: '' }] },
    ],
    [
      'nothing when the block already carries a marker of the same lifetime (5m is the default)',
      { cache_control: marker, messages: [{ role: 'user', content: [marked('Hi', { type: 'ephemeral', ttl: '5m' })] }] },
      { messages: [{ role: 'user', content: [marked('Hi', { type: 'ephemeral', ttl: '5m' })] }] },
    ],
  ])('%s', (_name, fields, expected) => {
    expect(place(fields)).toEqual(request(expected));
  });

  it(`adds the breakpoint while the request has fewer than ${MAX_CACHE_BREAKPOINTS}`, () => {
    const placed = place({
      cache_control: marker,
      tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: marker }],
      system: [marked('Sys')],
      messages: [{ role: 'user', content: [marked('Earlier')] }, { role: 'assistant', content: 'Ok' }, { role: 'user', content: 'Now' }],
    });
    expect(countCacheBreakpoints(placed)).toBe(4);
    expect(placed.messages[2]?.content).toEqual([marked('Now')]);
  });
});

describe('the 400s of the rule, before any call', () => {
  const four = {
    tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: marker }],
    system: [marked('Sys')],
    messages: [{ role: 'user', content: [marked('A'), marked('B')] }, { role: 'assistant', content: 'Ok' }, { role: 'user', content: 'Now' }],
  };
  const insideToolResult = {
    messages: [
      { role: 'user', content: 'Run it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
      { role: 'user', content: [toolResultWithMarkers(4), { type: 'text', text: 'Go on' }] },
    ],
  };
  const fifth = {
    system: [marked('1'), marked('2')],
    messages: [{ role: 'user', content: [marked('3')] }, { role: 'system', content: [marked('4')] }, { role: 'user', content: [marked('5')] }],
  };

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['four explicit markers', four, undefined],
    ['a fifth explicit marker, wherever it is', fifth, 'at most 4 blocks may carry cache_control, found 5'],
    ['a top-level marker with all four slots taken', { ...four, cache_control: marker }, "the top-level cache_control needs a cache breakpoint of its own, and the request's 4 cache_control markers take all 4"],
    [
      'a top-level marker after four markers inside a tool result',
      { ...insideToolResult, cache_control: marker },
      "the top-level cache_control needs a cache breakpoint of its own, and the request's 4 cache_control markers take all 4",
    ],
    ['a top-level marker landing on the same lifetime, four slots taken', { ...four, cache_control: marker, messages: [{ role: 'user', content: [marked('A'), marked('Now')] }] }, undefined],
    [
      'a top-level marker landing on a marker of another lifetime',
      { cache_control: marker, messages: [{ role: 'user', content: [marked('Hi', hourMarker)] }] },
      'the top-level cache_control (ttl 5m) lands on messages[0].content[0], which already carries cache_control with ttl 1h',
    ],
  ])('%s', (_name, fields, message) => {
    const check = () => assertCacheBreakpointLimit(request(fields));
    if (message === undefined) {
      expect(check).not.toThrow();
      expect(() => placeTopLevelCacheBreakpoint(request(fields))).not.toThrow();
      return;
    }
    expect(check).toThrow(`Invalid request parameters: ${message}`);
    // Placement and the translators' plan apply the same rule.
    expect(() => planCacheBreakpoints(request(fields))).toThrow(message);
    if ('cache_control' in fields) expect(() => placeTopLevelCacheBreakpoint(request(fields))).toThrow(message);
  });
});

describe('countCacheBreakpoints', () => {
  it.each([
    ['none', { messages: [{ role: 'user', content: 'Hi' }] }, 0],
    ['a null marker', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: null }] }] }, 0],
    ['tools, system and message blocks', { tools: [{ name: 't', input_schema: {}, cache_control: marker }], system: [marked('s')], messages: [{ role: 'user', content: [marked('Hi')] }] }, 3],
    ['tool result blocks and their content', { messages: [{ role: 'user', content: [{ ...toolResultWithMarkers(2), cache_control: marker }] }] }, 3],
    [
      'blocks inside search results and content documents, in a tool result too',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'search_result', source: 's', title: 't', content: [marked('a')], cache_control: marker },
              { type: 'document', source: { type: 'content', content: [marked('b'), { type: 'image', source: {}, cache_control: marker }] } },
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'search_result', source: 's', title: 't', content: [marked('c')] }] },
            ],
          },
        ],
      },
      5,
    ],
    ['system messages inside the conversation', { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: [marked('a'), marked('b')] }] }, 2],
    ['blocks of unknown types and roles', { messages: [{ role: 'user', content: [{ type: 'future_block_20270101', cache_control: marker }] }, { role: 'critic_20270101', content: [marked('c'), 'not a block'] }] }, 2],
    ['not the top-level marker', { cache_control: marker, messages: [{ role: 'user', content: 'Hi' }] }, 0],
  ])('counts %s', (_name, fields, count) => {
    expect(countCacheBreakpoints(request(fields))).toBe(count);
  });
});

describe('planCacheBreakpoints: the anchors the translators read', () => {
  it('anchors explicit markers on their own objects, nested ones on the tool result, and the top-level one where it lands', () => {
    const tool = { name: 't', input_schema: {}, cache_control: hourMarker };
    const system = marked('s');
    const result = { ...toolResultWithMarkers(2), content: [marked('a', hourMarker), { type: 'text', text: 'b' }] };
    const last = { role: 'user', content: 'Go on' };
    const input = request({ cache_control: marker, tools: [tool], system: [system], messages: [{ role: 'user', content: [result] }, last] });
    const plan = planCacheBreakpoints(input);
    expect([...plan.breakpoints.entries()]).toEqual([
      [tool, hourMarker],
      [system, marker],
      [result, hourMarker],
      [last, marker],
    ]);
    expect(plan.breakpoints.get(last)).toBe(marker);
  });

  it('anchors markers inside a search result or a content document on that block, and inside a tool result on the tool result', () => {
    const searchResult = { type: 'search_result', source: 's', title: 't', content: [marked('a', hourMarker)] };
    const document = { type: 'document', source: { type: 'content', content: [marked('b')] } };
    const result = { type: 'tool_result', tool_use_id: 't1', content: [{ ...searchResult, content: [marked('c')] }] };
    const plan = planCacheBreakpoints(request({ messages: [{ role: 'user', content: [searchResult, document, result] }] }));
    expect([...plan.breakpoints.entries()]).toEqual([
      [searchResult, hourMarker],
      [document, marker],
      [result, marker],
    ]);
  });

  it('anchors a top-level marker on a string system prompt to the request', () => {
    const input = request({ cache_control: marker, system: 'Be brief.', messages: [{ role: 'user', content: '' }] });
    expect([...planCacheBreakpoints(input).breakpoints.entries()]).toEqual([[input, marker]]);
  });

  it('adds nothing for a top-level marker when the last cacheable block already has one', () => {
    const block = marked('Hi');
    const plan = planCacheBreakpoints(request({ cache_control: marker, messages: [{ role: 'user', content: [block] }] }));
    expect([...plan.breakpoints.entries()]).toEqual([[block, marker]]);
  });
});
