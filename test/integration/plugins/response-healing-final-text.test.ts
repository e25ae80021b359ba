/**
 * The `response-healing` plugin with the client's own tools, over HTTP: the text a model writes before it
 * calls a tool (`tool_use`, `stop_reason: tool_use`) is not the answer's structured output, so it is never
 * healed, even when it holds something that repairs into schema-valid JSON. Only text after the last tool
 * call is the final answer. JSON and stream alike, against a fake Anthropic-format upstream. And each final
 * text block is healed on its own in a JSON answer as in a stream, even when another is unhealable.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, messageBody, modelYaml, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';

const SCHEMA = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
const TOOLS = [{ name: 'record', description: 'Records a total.', input_schema: { type: 'object', properties: { total: { type: 'number' } } } }];
// Prose with a JSON-like span that jsonrepair turns into {"total":42}, which matches the schema.
const PREAMBLE = 'I will record the total {total: 42} with the tool first.';
const TOOL_USE = { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'record', input: { total: 42 } };

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

const body = () => messageBody('test/structured', { tools: TOOLS, output_config: { format: { type: 'json_schema', schema: SCHEMA } }, plugins: [{ id: 'response-healing' }] });

/** The recorded structured-output stream's envelope around a text block and a tool call. */
function toolCallStream(text: string) {
  const recorded = readChunks('anthropic', 'anthropic-json-output-format.1') as { type: string }[];
  const start = recorded.find((event) => event.type === 'message_start');
  return reply.events([
    start,
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { ...TOOL_USE, input: {} } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"total": 42}' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
    { type: 'message_stop' },
  ]);
}

describe('response-healing leaves the text before a client tool call alone', () => {
  it('in a JSON answer', async () => {
    const recorded = readFixture<Record<string, unknown>>('anthropic', 'anthropic-json-output-format.1');
    upstream.enqueue(reply.json({ ...recorded, content: [{ type: 'text', text: PREAMBLE }, TOOL_USE], stop_reason: 'tool_use' }));
    const call = await postMessage(gateway, body(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.content).toEqual([{ type: 'text', text: PREAMBLE }, TOOL_USE]);
    expect((call.body.gateway_metadata as { plugins: unknown[] }).plugins).toEqual([{ id: 'response-healing', status: 'not_applicable', note: 'the answer has no final text' }]);
  });

  it('in a stream', async () => {
    upstream.enqueue(toolCallStream(PREAMBLE));
    const call = await streamMessage(gateway, body(), WITH_METADATA);

    expect(call.status).toBe(200);
    const texts = call.events.filter((event) => event.event === 'content_block_delta').map((event) => JSON.parse(event.data) as { delta: { type: string; text?: string } });
    expect(texts.filter((event) => event.delta.type === 'text_delta').map((event) => event.delta.text).join('')).toBe(PREAMBLE);
    const stop = JSON.parse(call.events.find((event) => event.event === 'message_stop')?.data ?? '{}') as { gateway_metadata?: { plugins?: unknown[] } };
    expect(stop.gateway_metadata?.plugins).toEqual([{ id: 'response-healing', status: 'not_applicable', note: 'the answer has no final text' }]);
  });
});

describe('response-healing heals each final text block on its own', () => {
  const blocks = ['{"total": 42,}', 'not JSON at all'];

  it('in a JSON answer, as in a stream: the healable block healed, the other as it came, reported unhealable', async () => {
    const recorded = readFixture<Record<string, unknown>>('anthropic', 'anthropic-json-output-format.1');
    upstream.enqueue(reply.json({ ...recorded, content: blocks.map((text) => ({ type: 'text', text })) }));
    const call = await postMessage(gateway, body(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((call.body.content as { text: string }[]).map((block) => block.text)).toEqual(['{"total": 42}', 'not JSON at all']);
    expect((call.body.gateway_metadata as { plugins: { status: string }[] }).plugins[0]?.status).toBe('unhealable');
  });

  it('in a stream', async () => {
    const recorded = readChunks('anthropic', 'anthropic-json-output-format.1') as { type: string }[];
    const events = blocks.flatMap((text, index) => [
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
      { type: 'content_block_stop', index },
    ]);
    const tail = recorded.filter((event) => event.type === 'message_delta' || event.type === 'message_stop');
    upstream.enqueue(reply.events([recorded.find((event) => event.type === 'message_start'), ...events, ...tail]));
    const call = await streamMessage(gateway, body(), WITH_METADATA);

    expect(call.status).toBe(200);
    const deltas = call.events.filter((event) => event.event === 'content_block_delta').map((event) => JSON.parse(event.data) as { index: number; delta: { text: string } });
    expect(deltas.map((event) => [event.index, event.delta.text])).toEqual([[0, '{"total": 42}'], [1, 'not JSON at all']]);
  });
});
