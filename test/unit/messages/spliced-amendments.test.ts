/**
 * The splice of the gateway's fields into an upstream event's bytes against the parse + serialise it stands
 * in for: for every upstream text, what the client parses is the value the object amendment gives, the bytes
 * around the data are the upstream's, and the events the splice cannot locate safely fall back to the object.
 */
import { describe, expect, it } from 'vitest';
import { amendStage, type AdditionsContext } from '#src/messages/gateway-additions.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { SseEventSplitter, UpstreamSseEvent } from '#src/providers/sse-reader.ts';

function context(): AdditionsContext {
  return { model: 'team/claude "fast" é', providerName: 'Anthropic', isByok: true, priceUsage: (usage) => (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) * 2, metadata: () => ({ requested: 'team/claude' }) as never };
}

// The stream's usage is summed over its events: a message_delta is amended after the message_start it follows.
const START = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"up","usage":{"input_tokens":5,"output_tokens":1}}}\n\n';

/** The last event of `frames` amended through the stage twice: as upstream bytes (splice) and as a plain data event (object). */
function amendBoth(frames: string): { spliced: SseEvent; object: SseEvent; upstream: UpstreamSseEvent } {
  const events = new SseEventSplitter().push(Buffer.from(START + frames));
  const upstream = events.at(-1)!;
  const bySplice = amendStage(context());
  const byObject = amendStage(context());
  let spliced: SseEvent = upstream;
  let object: SseEvent = upstream;
  for (const event of events) {
    spliced = bySplice.event(event);
    object = byObject.event({ event: event.event, data: event.data });
  }
  return { spliced, object, upstream };
}

const dataOf = (event: SseEvent) => ('data' in event ? event.data : JSON.stringify(event));

const CASES: [string, string, boolean][] = [
  ['canonical message_start', '{"type":"message_start","message":{"id":"m","type":"message","model":"claude","content":[],"usage":{"input_tokens":5}}}', true],
  ['spaced, unknown fields, escapes in values', '{ "message" : { "model" : "cl\\u0061ude" , "content" : [ { "type" : "text", "text" : "}\\"]{" } ] , "x" : { "y" : [ 1 , { } ] } } , "type" : "message_start" , "z" : null }', true],
  ['provider already there, replaced in place', '{"type":"message_start","message":{"provider":"someone","model":"c","usage":{}}}', true],
  ['an empty message gets both fields', '{"type":"message_start","message":{ }}', true],
  ['index-like keys (their order may differ)', '{"type":"message_start","message":{"2":"b","model":"c","1":"a"}}', true],
  ['non-ASCII bytes before the model', '{"type":"message_start","message":{"id":"日本 😀","model":"c"}}', true],
  ['model twice', '{"type":"message_start","message":{"model":"a","model":"b"}}', false],
  ['message twice', '{"type":"message_start","message":{"model":"a"},"message":{"model":"b"}}', false],
  ['a key written with an escape', '{"type":"message_start","message":{"mod\\u0065l":"a"}}', false],
];

const DELTAS: [string, string, boolean][] = [
  ['canonical message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":10}}', true],
  ['spaced, nested usage objects, number forms', '{ "usage" : { "output_tokens" : 1.0e1 , "server_tool_use" : { "web_search_requests" : 2 } , "future" : [ {"a":"}"} ] } , "type" : "message_delta" , "delta" : { "stop_reason" : "end_turn" } }', true],
  ['no output count: added', '{"type":"message_delta","delta":{},"usage":{"input_tokens":3}}', true],
  ['a null output count: replaced', '{"type":"message_delta","delta":{},"usage":{"output_tokens":null,"cost":7,"is_byok":"?"}}', true],
  ['an empty usage', '{"type":"message_delta","delta":{},"usage":{}}', true],
  ['no usage', '{"type":"message_delta","delta":{}}', false],
  ['usage null', '{"type":"message_delta","delta":{},"usage":null}', false],
  ['usage twice', '{"type":"message_delta","usage":{"output_tokens":1},"usage":{"output_tokens":2}}', false],
  ['cost twice', '{"type":"message_delta","usage":{"output_tokens":1,"cost":1,"cost":2}}', false],
];

const STOPS: [string, string, boolean][] = [
  ['canonical message_stop', '{"type":"message_stop"}', true],
  ['spaced, unknown field', '{ "type" : "message_stop" , "x" : [ "}" ] }', true],
];

describe('splicing the gateway fields into an upstream event', () => {
  it.each([...CASES.map(([name, data, spliced]) => [name, 'message_start', data, spliced] as const), ...DELTAS.map(([name, data, spliced]) => [name, 'message_delta', data, spliced] as const), ...STOPS.map(([name, data, spliced]) => [name, 'message_stop', data, spliced] as const)])(
    '%s (%s): parses to what the object amendment gives',
    (_name, type, data, splices) => {
      const { spliced, object, upstream } = amendBoth(`event: ${type}\nid: 7\ndata: ${data}\n\n`);
      expect(JSON.parse(dataOf(spliced))).toStrictEqual(JSON.parse(dataOf(object)));
      expect(spliced instanceof UpstreamSseEvent).toBe(splices);
      if (!(spliced instanceof UpstreamSseEvent)) return;
      // The bytes around the data are the upstream's; the payload handed on is what the bytes parse to.
      expect(spliced.raw.subarray(0, spliced.dataFrom).equals(upstream.raw.subarray(0, upstream.dataFrom))).toBe(true);
      expect(spliced.raw.subarray(spliced.dataTo).equals(upstream.raw.subarray(upstream.dataTo))).toBe(true);
      const handedOn = spliced.takePayload();
      expect(JSON.parse(spliced.data)).toStrictEqual(JSON.parse(JSON.stringify(handedOn)));
    },
  );

  it('keeps the upstream spacing and unknown fields byte for byte, and the key order of the serialised object', () => {
    const { spliced, object } = amendBoth('event: message_delta\ndata: { "type" : "message_delta", "usage" : { "output_tokens" : 10, "x" : 1 } }\n\n');
    expect(dataOf(spliced)).toBe('{ "type" : "message_delta", "usage" : { "output_tokens" : 10, "x" : 1 ,"cost":25,"is_byok":true} }');
    expect(Object.keys(JSON.parse(dataOf(spliced)).usage)).toEqual(Object.keys(JSON.parse(dataOf(object)).usage));
  });

  it('falls back to the object for data over several lines', () => {
    const { spliced } = amendBoth('event: message_stop\ndata: {"type":\ndata: "message_stop"}\n\n');
    expect(spliced instanceof UpstreamSseEvent).toBe(false);
    expect(spliced).toMatchObject({ type: 'message_stop', gateway_metadata: { requested: 'team/claude' } });
  });
});
