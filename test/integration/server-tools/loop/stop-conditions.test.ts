/**
 * Over HTTP, JSON and stream: each of the five stop conditions fires; any one of two fires (OR); conditions
 * override `max_tool_calls`; the default limit and the ceiling of 30 calls; `max_tool_calls: 0`. Whenever
 * the loop stops while the model still asks for tools, the calls of that step run, and the last upstream
 * request is the final turn: the same tools with `tool_choice: {type: none}`.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { bodyOf, loopBody, messagesOf, runLoop, useLoopGateway, type LoopAnswer } from './loop-support.ts';

const setup = useLoopGateway();
const DATETIME = { type: 'gateway:datetime' };
const CLOCK = { name: 'datetime', input: { timezone: 'UTC' } };
// On test/claude ($3 in, $15 out per million) this step costs 1000 x 3 + 100 x 15 = 4500 micro-dollars.
const TOOL_STEP: ScriptedStep = { text: 'Checking.', calls: [CLOCK], usage: { input: 1000, output: 100 } };
const ANSWER: ScriptedStep = { text: 'It is noon.', usage: { input: 1200, output: 10 } };

function script(...steps: ScriptedStep[]): void {
  setup.alpha.enqueue(...steps.map((step) => anthropicStep(step)));
}

async function loop(extra: Record<string, unknown>, stream: boolean): Promise<LoopAnswer> {
  return runLoop(setup.gateway, loopBody('test/claude', [DATETIME], { provider: { order: ['alpha'] }, ...extra }), stream);
}

/** The loop made `toolSteps` tool steps, all of whose calls ran, then one final turn with tools disabled. */
function expectStoppedAfter(answer: LoopAnswer, toolSteps: number, stoppedBy: Record<string, unknown>): void {
  const requests = setup.alpha.requests;
  expect(requests).toHaveLength(toolSteps + 1);
  for (const request of requests.slice(0, -1)) expect(bodyOf(request).tool_choice).toBeUndefined();
  const last = bodyOf(requests.at(-1));
  expect(last.tool_choice).toEqual({ type: 'none' });
  expect((last.tools as { name: string }[]).map((tool) => tool.name)).toEqual(['datetime']);
  // Every call was run and its result sent back before the final turn.
  const turns = messagesOf(requests.at(-1));
  expect(turns.filter((turn) => turn.role === 'user' && JSON.stringify(turn.content).includes('tool_result'))).toHaveLength(toolSteps);
  expect(answer.message.content.filter((block) => block.type === ('datetime_tool_result' as string))).toHaveLength(toolSteps);
  expect(answer.message.content.at(-1)).toMatchObject({ type: 'text', text: 'It is noon.' });
  expect(answer.message.stop_reason).toBe('end_turn');
  expect(answer.usage.server_tool_use).toEqual({ datetime_requests: toolSteps });
  const steps = answer.metadata.steps;
  expect(steps).toHaveLength(toolSteps + 1);
  expect(steps[toolSteps - 1]?.stopped_by).toEqual(stoppedBy);
  expect(steps.map((step) => step.tools_disabled)).toEqual([...Array(toolSteps).fill(false), true]);
}

describe.each([false, true])('stop conditions (stream: %s)', (stream) => {
  it('step_count_is: two tool steps, then the final turn', async () => {
    script(TOOL_STEP, TOOL_STEP, ANSWER);
    const condition = { type: 'step_count_is', step_count: 2 };
    expectStoppedAfter(await loop({ stop_server_tools_when: [condition] }, stream), 2, condition);
  });

  it('max_cost: the first step costs $0.0045, past $0.004', async () => {
    script(TOOL_STEP, ANSWER);
    const condition = { type: 'max_cost', max_cost_in_dollars: 0.004 };
    expectStoppedAfter(await loop({ stop_server_tools_when: [condition] }, stream), 1, condition);
  });

  it('max_tokens_used: 1100 tokens after one step, 2200 after two, past 2000', async () => {
    script(TOOL_STEP, TOOL_STEP, ANSWER);
    const condition = { type: 'max_tokens_used', max_tokens: 2000 };
    expectStoppedAfter(await loop({ stop_server_tools_when: [condition] }, stream), 2, condition);
  });

  it('has_tool_call: the step that called datetime is the last tool step', async () => {
    script(TOOL_STEP, ANSWER);
    const condition = { type: 'has_tool_call', tool_name: 'datetime' };
    expectStoppedAfter(await loop({ stop_server_tools_when: [condition] }, stream), 1, condition);
  });

  it('finish_reason_is: tool_use stops after the first tool step', async () => {
    script(TOOL_STEP, ANSWER);
    const condition = { type: 'finish_reason_is', reason: 'tool_use' };
    expectStoppedAfter(await loop({ stop_server_tools_when: [condition] }, stream), 1, condition);
  });

  it('OR: of two conditions, the one that fires first stops the loop', async () => {
    script(TOOL_STEP, TOOL_STEP, ANSWER);
    const cost = { type: 'max_cost', max_cost_in_dollars: 0.008 };
    expectStoppedAfter(await loop({ stop_server_tools_when: [{ type: 'step_count_is', step_count: 5 }, cost] }, stream), 2, cost);
  });

  it('conditions override max_tool_calls: three calls made with max_tool_calls 1', async () => {
    script(TOOL_STEP, TOOL_STEP, TOOL_STEP, ANSWER);
    const condition = { type: 'step_count_is', step_count: 3 };
    expectStoppedAfter(await loop({ max_tool_calls: 1, stop_server_tools_when: [condition] }, stream), 3, condition);
  });

  it('max_tool_calls without conditions: the limit reached stops the loop', async () => {
    script(TOOL_STEP, TOOL_STEP, ANSWER);
    expectStoppedAfter(await loop({ max_tool_calls: 2 }, stream), 2, { type: 'max_tool_calls', max_tool_calls: 2 });
  });
});

describe('limits', () => {
  const thirtyOne = Array.from({ length: 31 }, (_, index) => ({ name: 'datetime', input: { timezone: index % 2 === 0 ? 'UTC' : 'Europe/Paris' } }));

  it.each([
    ['no limit given: the default of 30', {}],
    ['max_tool_calls 100: held to the ceiling of 30', { max_tool_calls: 100 }],
    ['conditions that never fire: still the ceiling of 30', { stop_server_tools_when: [{ type: 'step_count_is', step_count: 50 }] }],
  ])('%s; the 31st call of a step is not run', async (_name, extra) => {
    script({ calls: thirtyOne, usage: { input: 10, output: 10 } }, ANSWER);
    const answer = await loop(extra, false);
    const results = answer.message.content.filter((block) => block.type === ('datetime_tool_result' as string)) as unknown as { content: { type: string; error_code?: string } }[];
    expect(results).toHaveLength(31);
    expect(results.filter((result) => result.content.type === 'datetime_result')).toHaveLength(30);
    expect(results[30]?.content).toEqual({ type: 'datetime_tool_result_error', error_code: 'max_uses_exceeded', message: 'not run: this request may make at most 30 gateway tool calls' });
    expect(answer.usage.server_tool_use).toEqual({ datetime_requests: 30 });
    expect(bodyOf(setup.alpha.lastRequest()).tool_choice).toEqual({ type: 'none' });
    expect(answer.metadata.steps[0]?.stopped_by).toEqual({ type: 'max_tool_calls', max_tool_calls: 30 });
  });

  it('max_tool_calls 0: the first turn is already the final one', async () => {
    script(ANSWER);
    const answer = await loop({ max_tool_calls: 0 }, false);
    expect(setup.alpha.requests).toHaveLength(1);
    expect(bodyOf(setup.alpha.lastRequest()).tool_choice).toEqual({ type: 'none' });
    expect(answer.message.content).toEqual([expect.objectContaining({ type: 'text', text: 'It is noon.' })]);
    expect(answer.metadata.steps).toEqual([expect.objectContaining({ step: 1, tools_disabled: true })]);
  });

  it.each([false, true])('a step cut off at max_tokens ends the loop: its call does not run, stop_reason max_tokens (stream: %s)', async (stream) => {
    script({ text: 'Checking.', calls: [CLOCK], usage: { input: 1000, output: 100 }, stopReason: 'max_tokens' });
    const answer = await loop({}, stream);
    expect(setup.alpha.requests).toHaveLength(1);
    expect(answer.message.content.map((block) => block.type as string)).toEqual(['text', 'server_tool_use', 'datetime_tool_result']);
    expect(answer.message.content.at(-1)).toMatchObject({
      content: { type: 'datetime_tool_result_error', error_code: 'invalid_input', message: 'not run: the step was cut off at max_tokens, so the input may be incomplete' },
    });
    expect(answer.message.stop_reason).toBe('max_tokens');
    expect(answer.usage.server_tool_use ?? {}).toEqual({});
  });

  it.each([false, true])('a final turn that still calls a gateway tool: the call does not run, stop_reason pause_turn (stream: %s)', async (stream) => {
    script(TOOL_STEP, { text: 'One more look.', calls: [CLOCK], usage: { input: 5, output: 5 } });
    const answer = await loop({ max_tool_calls: 1 }, stream);
    expect(answer.message.content.map((block) => block.type as string)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text', 'server_tool_use', 'datetime_tool_result']);
    expect(answer.message.content.at(-1)).toMatchObject({ content: { type: 'datetime_tool_result_error', error_code: 'max_uses_exceeded' } });
    expect(answer.message.stop_reason).toBe('pause_turn');
    expect(answer.usage.server_tool_use).toEqual({ datetime_requests: 1 });
    expect(setup.alpha.requests).toHaveLength(2);
  });
});
