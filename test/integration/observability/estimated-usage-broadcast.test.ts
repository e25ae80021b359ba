/**
 * Usage the gateway estimated (an OpenAI-compatible upstream that reported none) is marked as such on every
 * broadcast destination, each received by a server on 127.0.0.1: the webhook's `data.usage_estimated`, the
 * Langfuse observation's `metadata.usage_estimated`, and `switchboard.usage.estimated` on the OTLP generation
 * span and the attempt span of the call whose counts were estimated (a tool loop's step: its serving call), and
 * on a tool loop's step generation whose usage was estimated. Without it a trace
 * showed the estimate as counts the vendor reported. Reported usage carries neither mark (the receivers'
 * own tests, webhook-and-langfuse and otlp-export, check that side).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { EitherReply, JsonReply } from '#test/helpers/fake-upstreams/fake-reply.ts';
import type { ScriptedStep } from '#test/helpers/fake-upstreams/tool-steps.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { arrived, createDestination, ingestedEvents, INGESTION_PATH, receivedSpans, startTraceReceivers, TRACES_PATH } from './destination-receivers.ts';

const REQUEST = { model: 'test/compat', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }] };
const ANSWER = {
  id: 'chatcmpl-nullusage',
  object: 'chat.completion',
  created: 1_770_933_883,
  model: 'compat-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help?' }, finish_reason: 'stop' }],
  usage: null,
};

let upstream: FakeUpstream;
let gateway: TestGateway;
let receiver: CaptureServer;
let langfuse: CaptureServer;

/** A scripted tool-loop step answered as JSON with `usage: null`. */
function stepWithoutUsage(step: Omit<ScriptedStep, 'usage'>): EitherReply | JsonReply {
  const json = openAiChatStep({ ...step, usage: { input: 0, output: 0 } }).json as JsonReply;
  return reply.json({ ...(json.body as object), usage: null });
}

async function post(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as { usage: { estimated?: boolean } };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  expect(answer.usage.estimated).toBe(true);
  await gateway.server.flushRecords();
  return response.headers.get('x-generation-id') ?? '';
}

const langfuseEvents = () => ingestedEvents(langfuse, INGESTION_PATH);
const spans = () => receivedSpans(receiver, TRACES_PATH);

beforeAll(async () => {
  [upstream, { collector: receiver, langfuse }] = await Promise.all([startFakeOpenAiChat(), startTraceReceivers()]);
  const provider = `  compat: { family: openai-compatible, display_name: "Compat Cloud", base_url: "${upstream.baseURL}", api_key: "sk-compat-estimated-0001" }`;
  gateway = await startTestGateway({ catalogYaml: catalogYaml([provider], [modelYaml('test/compat', [{ provider: 'compat', model: 'compat-model', price: [1, 2] }])]), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  await createDestination(gateway, { name: 'hook', kind: 'webhook', endpoint: `${receiver.url}/hook`, signing_secret: 'whsec_0123456789abcdef0123' });
  await createDestination(gateway, { name: 'otlp', kind: 'otlp', endpoint: `${receiver.url}/v1/traces`, protocol: 'http/json' });
  await createDestination(gateway, { name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), receiver?.close(), langfuse?.close()]);
});

describe('estimated usage on broadcast destinations', () => {
  it('a generation whose usage was estimated is marked on the webhook, Langfuse and OTLP', async () => {
    upstream.enqueue(reply.json(ANSWER));
    const id = await post(REQUEST);

    const hook = await arrived('webhook delivery', () => receiver.requests.map((request) => (request.path === '/hook' ? JSON.parse(request.body.toString()) : null)).find((event) => event?.id === id));
    expect(hook.data).toMatchObject({ id, usage_estimated: true });

    const generation = await arrived('Langfuse generation', () => langfuseEvents().find((event) => event.type === 'generation-create' && event.body.id === id));
    expect(generation.body.metadata).toMatchObject({ provider: 'compat', usage_estimated: true });

    const span = await arrived('generation span', () => spans().find((candidate) => candidate.attributes['switchboard.generation.id'] === id));
    expect(span.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': 6, 'switchboard.usage.estimated': true });
    const call = spans().find((candidate) => candidate.parentSpanId === span.spanId);
    expect(call?.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': 6, 'switchboard.usage.estimated': true });
  });

  it("a tool loop's steps whose usage was estimated are marked, as is the request", async () => {
    upstream.enqueue(stepWithoutUsage({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }] }), stepWithoutUsage({ text: 'It is noon.' }));
    const id = await post({ ...REQUEST, tools: [{ type: 'gateway:datetime' }] });

    const steps = await arrived('Langfuse steps', () => {
      const found = langfuseEvents().filter((event) => event.type === 'generation-create' && event.body.parentObservationId === id);
      return found.length === 2 ? found : undefined;
    });
    for (const step of steps) expect(step.body.metadata).toMatchObject({ usage_estimated: true });
    const request = langfuseEvents().find((event) => event.type === 'span-create' && event.body.id === id);
    expect(request?.body.metadata).toMatchObject({ usage_estimated: true });

    const generation = await arrived('generation span', () => spans().find((candidate) => candidate.attributes['switchboard.generation.id'] === id));
    expect(generation.attributes['switchboard.usage.estimated']).toBe(true);
    const stepSpans = await arrived('step spans', () => {
      const found = spans().filter((candidate) => candidate.parentSpanId === generation.spanId && candidate.name.startsWith('step '));
      return found.length === 2 ? found : undefined;
    });
    // The mark travels with the counts it qualifies: on each step's serving call, not on the step's span.
    for (const step of stepSpans) {
      expect(step.attributes).not.toHaveProperty(['switchboard.usage.estimated']);
      const call = spans().find((candidate) => candidate.parentSpanId === step.spanId);
      expect(call?.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': expect.any(Number), 'switchboard.usage.estimated': true });
    }
  });
});
