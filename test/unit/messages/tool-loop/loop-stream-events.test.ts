import { describe, expect, it } from 'vitest';
import type { Usage } from '#src/api-types.ts';
import { closingEvents, mergeReportedUsage, wholeBlockEvents, type LoopStreamEnd } from '#src/messages/tool-loop/loop-stream-events.ts';

const USAGE: Usage = { input_tokens: 10, output_tokens: 4, cache_creation_input_tokens: null, cache_read_input_tokens: null, cost: 0.25 } as Usage;

describe('wholeBlockEvents', () => {
  it('sends the block in its start, then stops it, at the index given', () => {
    expect(wholeBlockEvents({ type: 'text', text: 'hi' } as never, 3)).toEqual([
      { type: 'content_block_start', index: 3, content_block: { type: 'text', text: 'hi' } },
      { type: 'content_block_stop', index: 3 },
    ]);
  });
});

describe('closingEvents', () => {
  const end: LoopStreamEnd = { stopReason: 'end_turn', stopSequence: null, usage: USAGE, isByok: false };
  it.each<[string, LoopStreamEnd, Parameters<typeof closingEvents>[1], Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['plain', end, null, { stop_reason: 'end_turn', stop_sequence: null }, { cost: 0.25, is_byok: false }, { type: 'message_stop' }],
    ['a container and details', { ...end, stopReason: 'refusal', stopDetails: { type: 'refusal' } as never }, { id: 'c1' } as never, { stop_details: { type: 'refusal' }, container: { id: 'c1' } }, {}, { type: 'message_stop' }],
    ['own key, estimated, no cost, metadata', { ...end, isByok: true, usage: { ...USAGE, cost: undefined, estimated: true } as unknown as Usage, metadata: { m: 1 } as never }, null, {}, { cost: 0, is_byok: true, estimated: true }, { type: 'message_stop', gateway_metadata: { m: 1 } }],
  ])('%s', (_case, given, container, delta, usage, stop) => {
    const [closing, last] = closingEvents(given, container) as [{ delta: object; usage: object }, object];
    expect(closing.delta).toMatchObject(delta);
    expect(closing.usage).toMatchObject({ input_tokens: 10, output_tokens: 4, cache_creation_input_tokens: null, cache_read_input_tokens: null, ...usage });
    expect(last).toEqual(stop);
    if (container === null) expect(closing.delta).not.toHaveProperty('container');
  });
});

describe('mergeReportedUsage', () => {
  it.each<[string, Partial<Usage>, Partial<Usage> | null | undefined, Partial<Usage>]>([
    ['nothing reported', { input_tokens: 5 }, undefined, { input_tokens: 5 }],
    ['a later count replaces, a null keeps', { input_tokens: 5, output_tokens: 1 }, { input_tokens: null, output_tokens: 9 } as never, { input_tokens: 5, output_tokens: 9 }],
    ['objects and the estimate carried', {}, { server_tool_use: { web_search_requests: 1 }, estimated: true } as never, { server_tool_use: { web_search_requests: 1 }, estimated: true } as never],
  ])('%s', (_case, before, update, after) => {
    const usage = { ...before };
    mergeReportedUsage(usage, update);
    expect(usage).toEqual(after);
  });
});
