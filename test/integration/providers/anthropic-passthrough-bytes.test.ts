/**
 * The pass-through guard: through the real gateway, every event of an Anthropic-format upstream's stream that
 * the gateway does not amend reaches the client as the very bytes the upstream sent (its line ends, field
 * order, spacing, comments, ids, unknown events, raw UTF-8), however the upstream's bytes were cut into
 * packets. Only `message_start`, `message_delta` and, when the metadata is asked for, `message_stop` are
 * rebuilt; blocks that dispatch no event (a comment, an `event:` without data) are not forwarded.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type ByteSplit, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { postMessages, usePassthroughGateway } from '#test/integration/providers/anthropic-passthrough-support.ts';

const MODEL = 'bytes/claude';

// Each upstream block, as bytes to send, with what the client must get: the same bytes (`raw`), a rebuilt
// event of that name (`amended`), or nothing (`dropped`).
type Expectation = 'raw' | 'amended' | 'dropped';
interface Block {
  text: string;
  name: string;
  expect: Expectation | ((metadata: boolean) => Expectation);
}

const BLOCKS: Block[] = [
  { text: '\uFEFF: opened by a proxy on the way\n\n', name: '', expect: 'dropped' },
  {
    text: 'event:message_start\r\ndata:{"type":"message_start","message":{"id":"msg_bytes","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}\r\n\r\n',
    name: 'message_start',
    expect: 'amended',
  },
  {
    text: 'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}\nid: 41\n: a comment inside an event\nevent: content_block_start\n\n',
    name: 'content_block_start',
    expect: 'raw',
  },
  { text: 'event: ping\ndata: {"type": "ping"}\n\n', name: 'ping', expect: 'raw' },
  { text: 'event: ping\n\n', name: '', expect: 'dropped' },
  {
    text: 'event: content_block_delta\ndata: {"index":0,"type":"content_block_delta","delta":{"text":"café 😀 日本 \\u00e9 \\/","type":"text_delta"},"future_field_20270101":1}   \n\n',
    name: 'content_block_delta',
    expect: 'raw',
  },
  { text: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\ndata:  "delta":{"type":"text_delta","text":"!"}}\n\n', name: 'content_block_delta', expect: 'raw' },
  { text: 'event: future_event_20270101\nretry: 3000\ndata: {"type": "future_event_20270101", "detail": 1.50}\n\n', name: 'future_event_20270101', expect: 'raw' },
  { text: 'data: {"type": "future_unnamed_event"}\n\n', name: 'message', expect: 'raw' },
  { text: 'event: content_block_stop\rdata: {"type": "content_block_stop", "index": 0}\r\r', name: 'content_block_stop', expect: 'raw' },
  {
    text: 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}\n\n',
    name: 'message_delta',
    expect: 'amended',
  },
  { text: 'event: message_stop\r\ndata: {"type": "message_stop"}\r\n\r\n', name: 'message_stop', expect: (metadata) => (metadata ? 'amended' : 'raw') },
];

const setup = usePassthroughGateway(MODEL, 'sk-ant-bytes-shared-0001');

async function streamThroughGateway(split: ByteSplit | undefined, metadata: boolean): Promise<Buffer> {
  setup.upstream.enqueue(reply.sse(BLOCKS.map((block) => block.text), split ? { split } : {}));
  const response = await postMessages(setup.gateway, MODEL, { stream: true, metadata });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** Reads one rebuilt event (`event: <name>\ndata: <json>\n\n`) at `offset`; returns its payload and where it ends. */
function rebuiltAt(body: Buffer, offset: number, name: string): { payload: Record<string, unknown>; end: number } {
  const end = body.indexOf('\n\n', offset);
  expect(end, `a rebuilt ${name} event at byte ${offset}`).toBeGreaterThan(offset);
  const lines = body.toString('utf8', offset, end).split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe(`event: ${name}`);
  expect(lines[1]?.startsWith('data: ')).toBe(true);
  return { payload: JSON.parse((lines[1] ?? '').slice('data: '.length)) as Record<string, unknown>, end: end + 2 };
}

/** Walks the client's bytes block by block: every untouched upstream block must be there, byte for byte. */
function checkClientBytes(body: Buffer, metadata: boolean): Map<string, Record<string, unknown>> {
  const rebuilt = new Map<string, Record<string, unknown>>();
  let offset = 0;
  for (const block of BLOCKS) {
    const expectation = typeof block.expect === 'function' ? block.expect(metadata) : block.expect;
    if (expectation === 'dropped') continue;
    if (expectation === 'raw') {
      const bytes = Buffer.from(block.text, 'utf8');
      expect(body.subarray(offset, offset + bytes.length).toString('utf8'), `the ${block.name} block at byte ${offset}`).toBe(block.text);
      expect(body.subarray(offset, offset + bytes.length).equals(bytes)).toBe(true);
      offset += bytes.length;
      continue;
    }
    const { payload, end } = rebuiltAt(body, offset, block.name);
    rebuilt.set(block.name, payload);
    offset = end;
  }
  expect(offset, 'nothing after the last event').toBe(body.length);
  return rebuilt;
}

const SPLITS: [string, ByteSplit | undefined][] = [
  ['one packet per event', undefined],
  ['every byte its own packet', { every: 1 }],
  ['cuts every 5 bytes', { every: 5 }],
  ['random cuts (seed 7)', { seed: 7, maxChunkBytes: 13 }],
  ['random cuts (seed 31)', { seed: 31, maxChunkBytes: 64 }],
];

describe('a pass-through stream from an Anthropic-format upstream', () => {
  it.each(SPLITS)('leaves every event it does not amend byte-identical (%s)', async (_name, split) => {
    const rebuilt = checkClientBytes(await streamThroughGateway(split, false), false);

    const start = rebuilt.get('message_start') as { message: Record<string, unknown> };
    expect(start.message).toMatchObject({ id: 'msg_bytes', model: MODEL, provider: 'Anthropic', usage: { input_tokens: 7, output_tokens: 1 } });
    const delta = rebuilt.get('message_delta') as { usage: Record<string, unknown> };
    // 7 input x $3/M + 3 output x $15/M
    expect(delta.usage).toMatchObject({ output_tokens: 3, is_byok: false });
    expect(delta.usage.cost).toBeCloseTo((7 * 3 + 3 * 15) / 1_000_000, 12);
  });

  it('rebuilds message_stop only to carry the metadata the client asked for, and still forwards the rest untouched', async () => {
    const rebuilt = checkClientBytes(await streamThroughGateway({ seed: 11, maxChunkBytes: 23 }, true), true);
    expect(rebuilt.get('message_stop')).toMatchObject({ type: 'message_stop', gateway_metadata: { requested: MODEL, attempt: 1 } });
  });
});
