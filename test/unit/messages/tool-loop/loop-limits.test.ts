import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_TOOL_CALLS, initialStopCause, MAX_TOOL_CALLS_CEILING, readLoopLimits, stopCause, type LoopProgress, type StepFacts } from '#src/messages/tool-loop/loop-limits.ts';
import type { MessageRequest } from '#src/api-types.ts';

const progress = (over: Partial<LoopProgress> = {}): LoopProgress => ({ steps: 1, costUsd: 0.001, tokens: 500, toolCalls: 1, ...over });
const step = (over: Partial<StepFacts> = {}): StepFacts => ({ stopReason: 'tool_use', toolsCalled: ['web_search'], ...over });
type Conditions = NonNullable<MessageRequest['stop_server_tools_when']>;

describe('readLoopLimits', () => {
  it.each([
    ['nothing given: the documented default', {}, [], DEFAULT_MAX_TOOL_CALLS],
    ['max_tool_calls', { max_tool_calls: 4 }, [], 4],
    ['max_tool_calls 0', { max_tool_calls: 0 }, [], 0],
    ['max_tool_calls above the ceiling: held to it', { max_tool_calls: 1000 }, [], MAX_TOOL_CALLS_CEILING],
    ['conditions override max_tool_calls; the ceiling stays', { max_tool_calls: 2, stop_server_tools_when: [{ type: 'step_count_is', step_count: 9 }] }, [{ type: 'step_count_is', step_count: 9 }], MAX_TOOL_CALLS_CEILING],
  ])('%s', (_name, request, conditions, maxToolCalls) => {
    expect(readLoopLimits(request as Partial<MessageRequest>)).toEqual({ conditions, maxToolCalls });
  });

  it('the default is the hosted service\'s, which is also its maximum', () => {
    expect([DEFAULT_MAX_TOOL_CALLS, MAX_TOOL_CALLS_CEILING]).toEqual([30, 30]);
  });

  it('a condition of unknown type is a 400 naming it', () => {
    expect(() => readLoopLimits({ stop_server_tools_when: [{ type: 'when_bored' }] as Conditions })).toThrow('stop_server_tools_when[0].type: unknown stop condition type "when_bored"');
  });

  it('max_tool_calls 0 disables tools from the first turn', () => {
    expect(initialStopCause(readLoopLimits({ max_tool_calls: 0 }))).toEqual({ type: 'max_tool_calls', max_tool_calls: 0 });
    expect(initialStopCause(readLoopLimits({}))).toBeNull();
  });
});

describe('stopCause', () => {
  const limits = (conditions: Conditions, maxToolCalls = MAX_TOOL_CALLS_CEILING) => ({ ...readLoopLimits({ stop_server_tools_when: conditions }), maxToolCalls });

  it.each([
    ['step_count_is below', { type: 'step_count_is', step_count: 2 }, progress({ steps: 1 }), step(), false],
    ['step_count_is reached', { type: 'step_count_is', step_count: 2 }, progress({ steps: 2 }), step(), true],
    ['max_cost below', { type: 'max_cost', max_cost_in_dollars: 0.01 }, progress({ costUsd: 0.0099 }), step(), false],
    ['max_cost reached', { type: 'max_cost', max_cost_in_dollars: 0.01 }, progress({ costUsd: 0.01 }), step(), true],
    ['max_tokens_used below', { type: 'max_tokens_used', max_tokens: 1000 }, progress({ tokens: 999 }), step(), false],
    ['max_tokens_used reached', { type: 'max_tokens_used', max_tokens: 1000 }, progress({ tokens: 1000 }), step(), true],
    ['has_tool_call, another tool', { type: 'has_tool_call', tool_name: 'datetime' }, progress(), step(), false],
    ['has_tool_call, that tool', { type: 'has_tool_call', tool_name: 'web_search' }, progress(), step({ toolsCalled: ['datetime', 'web_search'] }), true],
    ['finish_reason_is, another reason', { type: 'finish_reason_is', reason: 'max_tokens' }, progress(), step(), false],
    ['finish_reason_is, that reason', { type: 'finish_reason_is', reason: 'tool_use' }, progress(), step(), true],
  ] as const)('%s', (_name, condition, where, facts, fires) => {
    expect(stopCause(limits([condition as Conditions[number]]), where, facts)).toEqual(fires ? condition : null);
  });

  it('OR: the first condition in the request\'s order that fires', () => {
    const cost = { type: 'max_cost', max_cost_in_dollars: 0.0005 } as const;
    const tool = { type: 'has_tool_call', tool_name: 'web_search' } as const;
    expect(stopCause(limits([{ type: 'step_count_is', step_count: 5 }, cost, tool]), progress(), step())).toEqual(cost);
    expect(stopCause(limits([tool, cost]), progress(), step())).toEqual(tool);
  });

  it('the tool-call limit, once reached, whatever the conditions', () => {
    expect(stopCause(limits([], 3), progress({ toolCalls: 2 }), step())).toBeNull();
    expect(stopCause(limits([], 3), progress({ toolCalls: 3 }), step())).toEqual({ type: 'max_tool_calls', max_tool_calls: 3 });
    expect(stopCause(limits([{ type: 'step_count_is', step_count: 50 }]), progress({ toolCalls: 30 }), step())).toEqual({ type: 'max_tool_calls', max_tool_calls: 30 });
  });
});
