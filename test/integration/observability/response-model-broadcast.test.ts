/**
 * The model a vendor's answer names reaches the trace destinations as the vendor's: OTLP's
 * `gen_ai.response.model` on the generation span and on the attempt that answered (the GenAI conventions'
 * "model that generated the response"), and Langfuse's `model`, which its model definitions match. The client
 * keeps seeing the catalog slug. An OpenAI-compatible fake on 127.0.0.1 is asked for `compat-model` and answers
 * as the recorded OpenAI answer does, naming `gpt-4.1-nano-2025-04-14`, as JSON and streamed; a tool loop's
 * steps name their answers' model. The OTLP export is decoded as a collector would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import type { DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { arrived, createDestination, ingestedEvents, INGESTION_PATH, receivedSpans, startTraceReceivers, TRACES_PATH } from './destination-receivers.ts';

const REQUEST = { model: 'test/compat', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }] };
// What the recorded OpenAI answer names: a dated snapshot, not the id the gateway asked for.
const VENDOR_MODEL = 'gpt-4.1-nano-2025-04-14';
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

let upstream: FakeUpstream;
let gateway: TestGateway;
let collector: CaptureServer;
let langfuse: CaptureServer;

/** Posts the request; returns the generation id and the model the client saw. */
async function post(body: Record<string, unknown>): Promise<{ id: string; model: string }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  await gateway.server.flushRecords();
  const model = body.stream === true ? (JSON.parse(/^data: (.*"message_start".*)$/m.exec(text)![1]!) as { message: { model: string } }).message.model : (JSON.parse(text) as { model: string }).model;
  return { id: response.headers.get('x-generation-id') ?? '', model };
}

const langfuseEvents = () => ingestedEvents(langfuse, INGESTION_PATH);
const spans = () => receivedSpans(collector, TRACES_PATH);

/** The generation span of `id` and its children. */
async function treeOf(id: string): Promise<{ generation: DecodedSpan; children: DecodedSpan[] }> {
  const generation = await arrived('generation span', () => spans().find((span) => span.attributes['switchboard.generation.id'] === id));
  return { generation, children: spans().filter((span) => span.parentSpanId === generation.spanId) };
}

beforeAll(async () => {
  [upstream, { collector, langfuse }] = await Promise.all([startFakeOpenAiChat(), startTraceReceivers()]);
  const provider = `  compat: { family: openai-compatible, display_name: "Compat Cloud", base_url: "${upstream.baseURL}", api_key: "sk-compat-response-model-0001" }`;
  gateway = await startTestGateway({ catalogYaml: catalogYaml([provider], [modelYaml('test/compat', [{ provider: 'compat', model: 'compat-model', price: [1, 2] }])]), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  await createDestination(gateway, { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/protobuf' });
  await createDestination(gateway, { name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), collector?.close(), langfuse?.close()]);
});

describe("the vendor's response model on trace destinations", () => {
  it.each([
    ['JSON', false],
    ['a stream', true],
  ])('%s: the spans and the Langfuse generation name the model the answer named; the client sees the slug', async (_case, stream) => {
    upstream.enqueue(reply.fixture('openai-text'));
    const { id, model } = await post({ ...REQUEST, ...(stream ? { stream: true } : {}) });
    expect(model).toBe('test/compat');
    // The gateway asked the vendor for the catalog's id.
    expect(upstream.requests.at(-1)?.body).toMatchObject({ model: 'compat-model' });

    const { generation, children } = await treeOf(id);
    expect(generation.kind).toBe(SPAN_KIND_SERVER);
    expect(generation.attributes).toMatchObject({ 'gen_ai.request.model': 'test/compat', 'gen_ai.response.model': VENDOR_MODEL, 'gen_ai.provider.name': 'compat' });
    // The slug that served is the one asked for: `switchboard.model` would repeat `gen_ai.request.model`.
    expect(generation.attributes).not.toHaveProperty(['switchboard.model']);
    expect(children.map((span) => [span.name, span.kind, span.attributes['gen_ai.request.model'], span.attributes['gen_ai.response.model']])).toEqual([['chat compat-model', SPAN_KIND_CLIENT, 'compat-model', VENDOR_MODEL]]);

    const created = await arrived('Langfuse generation', () => langfuseEvents().find((event) => event.type === 'generation-create' && event.body.id === id));
    expect(created.body).toMatchObject({ model: VENDOR_MODEL, metadata: { requested_model: 'test/compat', gateway_model: 'test/compat', provider: 'compat' } });
    expect(created.body.usageDetails).toEqual({ input: expect.any(Number), output: expect.any(Number), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(created.body.costDetails).toEqual({ total: expect.any(Number) });
  });

  it("a tool loop's steps name the model each step's answer named", async () => {
    upstream.enqueue(openAiChatStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 20, output: 5 } }), openAiChatStep({ text: 'It is noon.', usage: { input: 30, output: 4 } }));
    const { id, model } = await post({ ...REQUEST, tools: [{ type: 'gateway:datetime' }] });
    expect(model).toBe('test/compat');

    const { generation, children } = await treeOf(id);
    // The scripted steps answer as `gpt-scripted`.
    expect(generation.attributes).toMatchObject({ 'gen_ai.request.model': 'test/compat', 'gen_ai.response.model': 'gpt-scripted' });
    const steps = children.filter((span) => span.name.startsWith('step '));
    expect(steps).toHaveLength(2);
    // Each step's call is the attempt under it, which names the models; the step's span does not repeat them.
    const calls = steps.map((step) => spans().find((span) => span.parentSpanId === step.spanId));
    expect(calls.map((span) => [span?.name, span?.attributes['gen_ai.request.model'], span?.attributes['gen_ai.response.model'], span?.attributes['switchboard.model']])).toEqual([
      ['chat compat-model', 'compat-model', 'gpt-scripted', 'test/compat'],
      ['chat compat-model', 'compat-model', 'gpt-scripted', 'test/compat'],
    ]);
    for (const step of steps) expect(step.attributes).not.toHaveProperty(['gen_ai.response.model']);

    const stepEvents = await arrived('Langfuse steps', () => {
      const found = langfuseEvents().filter((event) => event.type === 'generation-create' && event.body.parentObservationId === id);
      return found.length === 2 ? found : undefined;
    });
    for (const step of stepEvents) expect(step.body).toMatchObject({ model: 'gpt-scripted', metadata: { gateway_model: 'test/compat' } });
  });
});
