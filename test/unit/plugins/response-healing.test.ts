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
    [[], { status: 'not_applicable', note: 'the answer has no text' }],
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
