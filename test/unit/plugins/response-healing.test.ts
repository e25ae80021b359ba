import { describe, expect, it } from 'vitest';
import type { MessageResponse } from '#src/api-types.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { schemaCheck, type HealOutcome } from '#src/plugins/json-healing.ts';
import { healMessage, healStream, healingReport } from '#src/plugins/response-healing.ts';
import { wireEvent } from '#test/helpers/sse-events.ts';

const check = schemaCheck({ type: 'object', required: ['n'] });

function message(...texts: string[]): MessageResponse {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm/x',
    content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, ...texts.map((text) => ({ type: 'text' as const, text, citations: null }))],
    stop_reason: 'end_turn',
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

describe('healMessage', () => {
  it('replaces the text of a healed block and keeps the rest', () => {
    const healed = healMessage(message('{"n": 1,}'), check);
    expect(healed.report).toEqual({ id: 'response-healing', status: 'healed' });
    expect(healed.message.content).toEqual([{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: '{"n": 1}', citations: null }]);
  });

  it('gives back the very same message when nothing was healed', () => {
    const valid = message('{"n": 1}');
    expect(healMessage(valid, check).message).toBe(valid);
    const broken = message('no json');
    expect(healMessage(broken, check)).toMatchObject({ message: broken, report: { status: 'unhealable' } });
  });
});

describe('healingReport', () => {
  const outcomes: Record<string, HealOutcome> = { valid: { status: 'valid' }, healed: { status: 'healed', text: '{}' }, bad: { status: 'unhealable', note: 'why' } };
  it.each<[string[], Record<string, string>]>([
    [['valid'], { status: 'valid' }],
    [['valid', 'healed'], { status: 'healed' }],
    [['healed', 'bad'], { status: 'unhealable', note: 'why' }],
    [[], { status: 'not_applicable', note: 'the answer has no final text' }],
  ])('sums %j', (names, report) => {
    expect(healingReport(names.map((name) => outcomes[name] as HealOutcome))).toEqual({ id: 'response-healing', ...report });
  });
});

const raw = (payload: Record<string, unknown>): SseEvent => ({ event: payload.type as string, data: JSON.stringify(payload) });

function textStream(pieces: string[], tail: SseEvent[] = [raw({ type: 'content_block_stop', index: 1 }), raw({ type: 'message_stop' })]): SseEvent[] {
  return [
    raw({ type: 'message_start', message: {} }),
    raw({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
    raw({ type: 'content_block_stop', index: 0 }),
    raw({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
    ...pieces.flatMap((text, position) => [raw({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } }), ...(position === 0 ? [raw({ type: 'ping' })] : [])]),
    ...tail,
  ];
}

async function run(events: SseEvent[]): Promise<{ out: SseEvent[]; outcomes: HealOutcome[] }> {
  const outcomes: HealOutcome[] = [];
  const out: SseEvent[] = [];
  for await (const event of healStream((async function* () { yield* events; })(), check, outcomes)) out.push(event);
  return { out, outcomes };
}

describe('healStream', () => {
  it('holds a text block until it stops, then sends it healed in one delta (pings pass at once)', async () => {
    const { out, outcomes } = await run(textStream(['{"n": ', '1,', '}']));
    expect(out.map(wireEvent).map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'content_block_stop', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_stop']);
    expect(out[5]).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '{"n": 1}' } });
    expect(outcomes).toEqual([{ status: 'healed', text: '{"n": 1}' }]);
  });

  it('sends a valid block on as the upstream sent it, byte for byte', async () => {
    const events = textStream(['{"n":', ' 1}']);
    const { out } = await run(events);
    expect(out.filter((event) => wireEvent(event).event !== 'ping')).toEqual(events.filter((event) => wireEvent(event).event !== 'ping'));
  });

  it('lets what was held out first when an error ends the stream inside a block', async () => {
    const error = raw({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const { out, outcomes } = await run(textStream(['{"n":'], [error]));
    expect(out.map(wireEvent).map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'content_block_stop', 'ping', 'content_block_start', 'content_block_delta', 'error']);
    expect(outcomes).toEqual([]);
  });

  it('lets what was held out when the stream ends inside a block', async () => {
    const { out } = await run(textStream(['{"n":'], []));
    expect(out.map(wireEvent).map((event) => event.event).slice(-2)).toEqual(['content_block_start', 'content_block_delta']);
  });
});

describe('the final text only', () => {
  const use = { type: 'server_tool_use' as const, id: 'srvtoolu_gw_1', name: 'datetime', input: {} };
  const result = { type: 'datetime_tool_result', tool_use_id: 'srvtoolu_gw_1', content: { type: 'datetime_result' } } as never;

  it('heals only the text after the last server tool block of a message', () => {
    const before = { type: 'text' as const, text: 'Let me look at the clock.', citations: null };
    const answer: MessageResponse = { ...message('{"n": 1,}'), content: [before, use, result, { type: 'text', text: '{"n": 1,}', citations: null }] };
    const healed = healMessage(answer, check);
    expect(healed.report).toEqual({ id: 'response-healing', status: 'healed' });
    expect(healed.message.content[0]).toBe(before);
    expect(healed.message.content[3]).toEqual({ type: 'text', text: '{"n": 1}', citations: null });
    const unfinished: MessageResponse = { ...answer, content: [before, use, result] };
    expect(healMessage(unfinished, check).report).toEqual({ id: 'response-healing', status: 'not_applicable', note: 'the answer has no final text' });
  });

  it('in a stream, sends text followed by a server tool block as it came and heals the text after it', async () => {
    const text = (index: number, value: string) => [
      raw({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
      raw({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: value } }),
      raw({ type: 'content_block_stop', index }),
    ];
    const preamble = text(0, 'Let me look at the clock.');
    const events = [
      raw({ type: 'message_start', message: {} }),
      ...preamble,
      raw({ type: 'content_block_start', index: 1, content_block: use }),
      raw({ type: 'content_block_stop', index: 1 }),
      raw({ type: 'content_block_start', index: 2, content_block: result }),
      raw({ type: 'content_block_stop', index: 2 }),
      ...text(3, '{"n": 1,}'),
      raw({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
      raw({ type: 'message_stop' }),
    ];
    const { out, outcomes } = await run(events);
    expect(out.slice(0, 4)).toEqual([events[0], ...preamble]);
    expect(out.slice(8, 11)).toEqual([
      { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: '{"n": 1}' } },
      { type: 'content_block_stop', index: 3 },
    ]);
    expect(out.slice(11).map(wireEvent).map((event) => event.event)).toEqual(['message_delta', 'message_stop']);
    expect(outcomes).toEqual([{ status: 'healed', text: '{"n": 1}' }]);
  });
});
