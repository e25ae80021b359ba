/**
 * The `response-healing` plugin over HTTP, against a fake Anthropic-format upstream replaying a recorded
 * structured-output answer whose text is replaced by each malformed case: cut off, trailing commas, fenced in
 * markdown, single quotes are healed into schema-valid JSON; schema-valid output is untouched (byte for byte,
 * in JSON and in a stream); output that cannot be healed comes back as it came with the metadata's note.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { readChunks, readFixture, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, eventPayload, messageBody, modelYaml, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';

const SCHEMA = {
  type: 'object',
  properties: { total: { type: 'number' }, items: { type: 'array', items: { type: 'string' } } },
  required: ['total'],
  additionalProperties: false,
};
const FIXTURE = 'anthropic-json-output-format.1';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/structured', [{ provider: 'alpha', model: 'claude-structured', price: [1, 2] }])]),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clear());

function body(plugins: unknown[] = [{ id: 'response-healing' }]): Record<string, unknown> {
  return messageBody('test/structured', { output_config: { format: { type: 'json_schema', schema: SCHEMA } }, plugins });
}

/** The recorded JSON answer with its text replaced. */
function jsonAnswer(text: string) {
  const recorded = readFixture<Record<string, unknown>>('anthropic', FIXTURE);
  return reply.json({ ...recorded, content: [{ type: 'text', text }] });
}

/** The recorded stream with its text deltas replaced by `text` cut in three pieces (and a ping in between). */
function streamAnswer(text: string) {
  const recorded = readChunks('anthropic', FIXTURE) as { type: string }[];
  const third = Math.ceil(text.length / 3);
  const pieces = [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
  const deltas = pieces.map((piece) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }));
  const head = recorded.filter((event) => event.type === 'message_start' || event.type === 'content_block_start');
  const tail = recorded.filter((event) => ['content_block_stop', 'message_delta', 'message_stop'].includes(event.type));
  return reply.events([...head, deltas[0], { type: 'ping' }, deltas[1], deltas[2], ...tail]);
}

function textOf(message: Record<string, unknown>): string {
  return (message.content as { type: string; text?: string }[]).filter((block) => block.type === 'text').map((block) => block.text).join('');
}

function pluginsOf(metadata: unknown): unknown[] {
  return ((metadata as { plugins?: unknown[] } | undefined)?.plugins ?? []) as unknown[];
}

const HEALED_CASES = [
  ['cut off', '{"total": 42, "items": ["apples", "pears"', { total: 42, items: ['apples', 'pears'] }],
  ['trailing commas', '{"total": 42, "items": ["apples", "pears",],}', { total: 42, items: ['apples', 'pears'] }],
  ['fenced in markdown', 'Here is the JSON:\n```json\n{"total": 42, "items": ["apples"]}\n```\nAnything else?', { total: 42, items: ['apples'] }],
  ['single quotes', "{'total': 42, 'items': ['apples']}", { total: 42, items: ['apples'] }],
] as const;

describe('response-healing on a JSON answer', () => {
  it.each(HEALED_CASES)('heals output %s into schema-valid JSON', async (_case, text, expected) => {
    upstream.enqueue(jsonAnswer(text));
    const call = await postMessage(gateway, body(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(JSON.parse(textOf(call.body))).toEqual(expected);
    expect(pluginsOf(call.body.gateway_metadata)).toEqual([{ id: 'response-healing', status: 'healed' }]);
  });

  it('leaves schema-valid output exactly as it came', async () => {
    const text = '{ "total" : 42,\n  "items": ["apples"] }';
    upstream.enqueue(jsonAnswer(text));
    const call = await postMessage(gateway, body(), WITH_METADATA);

    expect(textOf(call.body)).toBe(text);
    expect(pluginsOf(call.body.gateway_metadata)).toEqual([{ id: 'response-healing', status: 'valid' }]);
  });

  it.each([
    ['prose with no JSON', 'I am sorry, I cannot give a total for that.', /repaired output does not match the schema: \/ must be object/],
    ['JSON broken beyond repair', '{{{ "total": 42', /the output is not repairable JSON: Unexpected character/],
    ['JSON that breaks the schema', '{"total": "forty-two"}', /does not match the schema: \/total must be number/],
  ])('returns %s as it came, with a note in gateway_metadata', async (_case, text, note) => {
    upstream.enqueue(jsonAnswer(text));
    const call = await postMessage(gateway, body(), WITH_METADATA);

    expect(call.status).toBe(200);
    expect(textOf(call.body)).toBe(text);
    const [report] = pluginsOf(call.body.gateway_metadata) as { id: string; status: string; note: string }[];
    expect(report).toMatchObject({ id: 'response-healing', status: 'unhealable' });
    expect(report?.note).toMatch(note);
  });

  it('changes nothing without the plugin, nor without a json_schema format', async () => {
    upstream.enqueue(jsonAnswer('{"total": 42,}'), jsonAnswer('{"total": 42,}'));
    const off = await postMessage(gateway, body([]), WITH_METADATA);
    const noFormat = await postMessage(gateway, messageBody('test/structured', { plugins: [{ id: 'response-healing' }] }), WITH_METADATA);

    expect(textOf(off.body)).toBe('{"total": 42,}');
    expect(pluginsOf(off.body.gateway_metadata)).toEqual([]);
    expect(textOf(noFormat.body)).toBe('{"total": 42,}');
    expect(pluginsOf(noFormat.body.gateway_metadata)).toEqual([{ id: 'response-healing', status: 'not_applicable', note: 'the request asks for no json_schema output format' }]);
  });
});

function blockEvents(events: RawSseEvent[]): Record<string, unknown>[] {
  return events.filter((event) => event.event.startsWith('content_block')).map((event) => JSON.parse(event.data) as Record<string, unknown>);
}

function streamedText(events: RawSseEvent[]): string {
  return blockEvents(events)
    .map((event) => (event.delta as { text?: string } | undefined)?.text ?? '')
    .join('');
}

describe('response-healing on a stream', () => {
  it.each(HEALED_CASES)('sends output %s healed, whole, in one delta once the block is complete', async (_case, text, expected) => {
    upstream.enqueue(streamAnswer(text));
    const call = await streamMessage(gateway, body(), WITH_METADATA);

    expect(call.status).toBe(200);
    const blocks = blockEvents(call.events);
    expect(blocks.map((event) => event.type)).toEqual(['content_block_start', 'content_block_delta', 'content_block_stop']);
    expect(blocks[0]).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(JSON.parse(streamedText(call.events))).toEqual(expected);
    expect(call.events.map((event) => event.event)).toContain('ping');
    expect(pluginsOf(eventPayload(call, 'message_stop').gateway_metadata)).toEqual([{ id: 'response-healing', status: 'healed' }]);
  });

  it('passes schema-valid output through as the upstream sent it', async () => {
    const text = '{"total": 42, "items": ["apples", "pears"]}';
    upstream.enqueue(streamAnswer(text));
    const call = await streamMessage(gateway, body(), WITH_METADATA);

    const blocks = blockEvents(call.events);
    expect(blocks.map((event) => event.type)).toEqual(['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop']);
    expect(streamedText(call.events)).toBe(text);
    expect(pluginsOf(eventPayload(call, 'message_stop').gateway_metadata)).toEqual([{ id: 'response-healing', status: 'valid' }]);
  });

  it('passes unhealable output through as it came, with the note on message_stop', async () => {
    const text = 'No JSON here, sorry.';
    upstream.enqueue(streamAnswer(text));
    const call = await streamMessage(gateway, body(), WITH_METADATA);

    expect(streamedText(call.events)).toBe(text);
    const [report] = pluginsOf(eventPayload(call, 'message_stop').gateway_metadata) as { status: string; note: string }[];
    expect(report).toMatchObject({ status: 'unhealable' });
    expect(report?.note).toMatch(/does not match the schema: \/ must be object/);
  });
});
