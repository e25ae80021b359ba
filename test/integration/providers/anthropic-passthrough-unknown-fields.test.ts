/**
 * Through the real gateway, an Anthropic-format upstream whose events are not in `JSON.stringify`'s form
 * (spaces around every token, unicode escapes, fields Anthropic may add tomorrow, nested unknown objects in
 * `usage`): the events the gateway does not amend reach the client as the very bytes the upstream sent, and
 * the three it amends (`message_start`, `message_delta`, `message_stop` with the metadata asked for) keep every
 * field and value of the upstream's, the gateway's own fields added. The passthrough promises both whichever
 * way the amended events are written (parsed and serialised today; see bench/JOURNAL.md, 2026-11-28, for the
 * splice that was measured and dropped).
 */
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { postMessages, usePassthroughGateway } from '#test/integration/providers/anthropic-passthrough-support.ts';

const MODEL = 'fields/claude';

const START = String.raw`{ "type" : "message_start" , "message" : { "id" : "msg_fields" , "type" : "message" , "role" : "assistant" , "model" : "claude-sonnet-4-5" , "content" : [ ] , "stop_reason" : null , "stop_sequence" : null , "usage" : { "input_tokens" : 7 , "output_tokens" : 1 , "future_usage_detail" : { "tier" : "caf\u00e9" , "counts" : [ 1 , 2.50 , -1 ] } } , "future_message_field" : "\u65e5\u672c \"quoted\" \\ end" } , "future_top_field" : [ { "a" : { "b" : "}]" } } ] }`;
const DELTA = String.raw`{"usage" : {"future_delta_usage": {"nested": {"deep": [true, null]}}, "output_tokens": 3e0 }, "type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "future_delta_field": "x"}`;
const STOP = '{ "type": "message_stop", "future_stop_field": 1 }';

// The upstream's stream: LF framing, one packet per event; the untouched events are spaced too.
const FRAMES = [
  `event: message_start\ndata: ${START}\n\n`,
  'event: content_block_start\ndata: { "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }\n\n',
  'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "caf\\u00e9 \u00e9"}, "future": 1}\n\n',
  'event: content_block_stop\ndata: { "type": "content_block_stop", "index": 0 }\n\n',
  `event: message_delta\ndata: ${DELTA}\n\n`,
  `event: message_stop\ndata: ${STOP}\n\n`,
];
const AMENDED = new Set(['message_start', 'message_delta']);

const setup = usePassthroughGateway(MODEL, 'sk-ant-fields-shared-0001');

/** The client's events, as `event:`/`data:` blocks the gateway wrote (LF framing, one data line each). */
async function streamedEvents(metadata: boolean): Promise<{ name: string; text: string; data: string }[]> {
  setup.upstream.enqueue(reply.sse(FRAMES));
  const response = await postMessages(setup.gateway, MODEL, { stream: true, metadata });
  expect(response.status).toBe(200);
  const body = await response.text();
  expect(body.endsWith('\n\n')).toBe(true);
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      expect(lines).toHaveLength(2);
      return { name: lines[0]!.replace(/^event: ?/, ''), text: `${block}\n\n`, data: lines[1]!.replace(/^data: ?/, '') };
    });
}

describe('an Anthropic-format upstream whose JSON is spaced and carries unknown fields', () => {
  it.each([false, true])('keeps untouched events byte-identical and every upstream field of the amended ones (metadata %s)', async (metadata) => {
    const events = await streamedEvents(metadata);
    expect(events.map((event) => event.name)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    const amended = (name: string) => AMENDED.has(name) || (metadata && name === 'message_stop');
    events.forEach((event, index) => {
      if (!amended(event.name)) expect(event.text, event.name).toBe(FRAMES[index]);
    });

    const start = JSON.parse(START) as { message: Record<string, unknown> };
    expect(JSON.parse(events[0]!.data)).toEqual({ ...start, message: { ...start.message, model: MODEL, provider: 'Anthropic' } });

    const delta = JSON.parse(DELTA) as { usage: Record<string, unknown> };
    const sentDelta = JSON.parse(events[4]!.data) as { usage: { cost: number } };
    // 7 input x $3/M + 3 output x $15/M
    expect(sentDelta.usage.cost).toBeCloseTo((7 * 3 + 3 * 15) / 1_000_000, 12);
    expect(sentDelta).toEqual({ ...delta, usage: { ...delta.usage, cost: sentDelta.usage.cost, is_byok: false } });

    const stop = JSON.parse(events[5]!.data) as Record<string, unknown>;
    if (metadata) expect(stop).toMatchObject({ ...(JSON.parse(STOP) as object), gateway_metadata: { requested: MODEL, attempt: 1 } });
  });
});
