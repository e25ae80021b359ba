import { describe, expect, it } from 'vitest';
import { startStream, streamEvents, streamOutcomeStage } from '#src/messages/attempt-answers.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import { readyEventsOf } from '#src/providers/event-stages.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import type { RawSseEvent, SseEvent } from '#src/providers/provider-adapter.ts';
import { chunkedBody } from '#test/helpers/chunked-body.ts';
import type { Attempt } from '#src/routing/attempt.ts';

const attempt = { provider: { slug: 'anthropic' } } as Attempt;
const frame = (name: string) => `event: ${name}\ndata: {"type":"${name}"}\n\n`;

const nameOf = (event: SseEvent | undefined) => (event as RawSseEvent | undefined)?.event;

describe('streamEvents', () => {
  it("hands out the first event, then what the adapter holds ready, without a promise, then reads on", async () => {
    const started = await startStream(attempt, { events: new PassedEvents('anthropic', chunkedBody([frame('message_start') + frame('ping'), frame('message_stop')])), warnings: [] });
    const events = readyEventsOf(streamEvents(started));
    expect(events).toBeDefined();
    expect(nameOf(events?.nextReady())).toBe('message_start');
    expect(nameOf(events?.nextReady())).toBe('ping');
    expect(events?.nextReady()).toBeUndefined();
    expect(nameOf((await events?.next())?.value)).toBe('message_stop');
    expect((await events?.next())?.done).toBe(true);
  });

  it('over an adapter that holds nothing ready, hands out only the first event without a promise', async () => {
    async function* plain(): AsyncGenerator<SseEvent> {
      yield { event: 'message_start', data: '{}' };
      yield { event: 'message_stop', data: '{}' };
    }
    const events = readyEventsOf(streamEvents(await startStream(attempt, { events: plain(), warnings: [] })));
    expect(nameOf(events?.nextReady())).toBe('message_start');
    expect(events?.nextReady()).toBeUndefined();
    expect(nameOf((await events?.next())?.value)).toBe('message_stop');
    expect((await events?.next())?.done).toBe(true);
  });
});

describe('streamOutcomeStage', () => {
  type Outcomes = { records: { status: string }[]; served: { index: number; messageId?: string | undefined } | null }[];
  const setup = () => {
    const heard: Outcomes = [];
    const turns: unknown[] = [];
    const planner = {
      recordOutcomes: (_plan: unknown, records: { status: string }[], served: Outcomes[number]['served']) => heard.push({ records: records.map(({ status }) => ({ status })), served }),
      recordThreadTurn: (_plan: unknown, turn: { clientMessageId: string; upstreamMessageId: string }) => turns.push({ client: turn.clientMessageId, upstream: turn.upstreamMessageId }),
    } as unknown as RequestPlanner;
    const record = { attempt, index: 1, status: 'success', httpStatus: 200, durationMs: 5 } as AttemptRecord;
    const context = { trail: { strategy: 'price-weighted', records: [record] } } as unknown as MessagesRequestContext;
    return { heard, turns, planner, record, context };
  };

  it.each([
    ['served to the end', [] as const, { kind: 'complete' } as const, 'success', { index: 1, messageId: 'msg_b' }],
    ['refused, the refusal the answer', ['refused'] as const, { kind: 'complete' } as const, 'refusal', { index: 1, messageId: 'msg_b' }],
    ['refused and moved on (left)', ['movedOn'] as const, { kind: 'abandoned' } as const, 'refusal', null],
  ])('%s: routing hears the status and whether it served; the trail says the same', (_, calls, end, status, served) => {
    const { heard, planner, record, context } = setup();
    const stage = streamOutcomeStage(planner, {} as RequestPlan, context, record, 'msg_b');
    for (const call of calls) {
      if (call === 'movedOn') stage.movedOn({ input_tokens: 7, output_tokens: 1 });
      else stage[call]();
    }
    stage.end(end);
    expect(heard).toEqual([{ records: [{ status }], served }]);
    expect(context.trail.records.map((entry) => entry.status)).toEqual([status]);
    // A refusal moved on from keeps what it reported, for the record and the key's spending.
    expect(context.trail.records[0]?.refusedUsage).toEqual(calls.includes('movedOn' as never) ? { input_tokens: 7, output_tokens: 1 } : undefined);
  });

  it("pins the client's id to the serving attempt when the client was given another stream's id", () => {
    const { turns, planner, record, context } = setup();
    streamOutcomeStage(planner, {} as RequestPlan, context, record, 'msg_b', 'msg_a').end({ kind: 'complete' });
    streamOutcomeStage(planner, {} as RequestPlan, context, record, 'msg_b', 'msg_b').end({ kind: 'complete' });
    expect(turns).toEqual([{ client: 'msg_a', upstream: 'msg_b' }]);
  });
});
