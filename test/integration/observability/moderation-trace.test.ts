/**
 * The `moderation` plugin's screening by a catalog model (`engine: model`) as trace destinations receive it,
 * over HTTP: a gateway whose moderation model is `test/other` (on Beta) screens a request to `test/primary`
 * (on Alpha), and a collector on 127.0.0.1 decodes the OTLP export (protobuf) while a Langfuse stand-in keeps
 * the ingestion batch. The screening is a CLIENT span under the generation span (named `chat <vendor model id>`
 * as the GenAI conventions name an inference call; same trace, its own id, its model, tokens, cost and window
 * inside the generation's) and a Langfuse generation of its own carrying its
 * cost (the trace's generation costs add up to what the key was charged). Without moderation nothing changes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import { ALPHA_FIRST, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { costOf, generationOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { arrived, createDestination, ingestedEvents, startTraceReceivers, traceOf as traceOfGeneration, type IngestionEvent } from './destination-receivers.ts';

const SPAN_KIND_CLIENT = 3;
const SCREENING = costOf(90, 12);
const MODEL = costOf(20, 10);
// A new text each time: a text the moderation model passed is not screened again for the account.
const moderated = () => ({ ...ALPHA_FIRST, plugins: [{ id: 'moderation' }], messages: [{ role: 'user', content: `Hello there (${randomUUID()})` }] });

let setup: RecordsGateway;
let collector: CaptureServer;
let langfuse: CaptureServer;

/** Beta screens (a verdict after `delayMs`, so the screening has a window of its own); Alpha answers. */
function enqueue(options: { screened: boolean; delayMs?: number }): void {
  if (options.screened) setup.beta.enqueue(anthropicStep({ text: '{"flagged": false, "category": null, "explanation": "Fine."}', usage: { input: 90, output: 12 } }, { delayMs: options.delayMs ?? 40 }));
  setup.alpha.enqueue(anthropicStep({ text: 'Knead, rise, bake.', usage: { input: 20, output: 10 } }));
}

/** The spans of the trace holding generation `id`, once the collector got its generation span. */
const traceOf = (id: string) => traceOfGeneration(setup.gateway, collector, id);

/** The Langfuse events of generation `id`, once its request's observation arrived. */
async function langfuseEventsOf(id: string): Promise<IngestionEvent[]> {
  await setup.gateway.server.flushRecords();
  return arrived(`Langfuse event of ${id}`, () => {
    const batch = ingestedEvents(langfuse);
    return batch.some((event) => event.id === `${id}-generation`) ? batch.filter((event) => event.id.startsWith(id)) : undefined;
  });
}

beforeAll(async () => {
  ({ collector, langfuse } = await startTraceReceivers());
  setup = await startRecordsGateway({ extraYaml: 'plugins:\n  moderation: { engine: model, model: test/other }\n' });
  for (const body of [
    { name: 'collector', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/protobuf' },
    { name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' },
  ])
    await createDestination(setup.gateway, body);
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([collector?.close(), langfuse?.close()]);
});
beforeEach(() => {
  setup.alpha.clear();
  setup.beta.clear();
});

describe('OTLP: the moderation screening', () => {
  it('is a CLIENT span under the generation span, with its model, tokens, cost and window inside the generation\'s', async () => {
    enqueue({ screened: true });
    const call = await postMessage(setup.gateway, messageBody('test/primary', moderated()));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const { spans, generation } = await traceOf(id);
    // Named as the GenAI conventions name an inference call, `{operation} {vendor model id}`.
    const screening = spans.find((span) => span.name === 'chat up-other-beta');
    expect(screening).toBeDefined();
    expect(screening).toMatchObject({ traceId: generation.traceId, parentSpanId: generation.spanId, kind: SPAN_KIND_CLIENT, status: { code: 0 } });
    expect(screening!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'beta',
      // The vendor's id the gateway asked for, the model the answer named, and the catalog slug.
      'gen_ai.request.model': 'up-other-beta',
      'gen_ai.response.model': 'claude-scripted',
      'switchboard.model': 'test/other',
      'gen_ai.usage.input_tokens': 90,
      'gen_ai.usage.output_tokens': 12,
      'switchboard.is_byok': false,
      'switchboard.plugin': 'moderation',
    });
    expect(screening!.attributes['switchboard.cost_usd']).toBeCloseTo(SCREENING, 12);
    expect((await generationOf(setup.gateway, id)).moderation.cost).toBe(screening!.attributes['switchboard.cost_usd']);
    // The generation span is the request: the whole charge, and a window that holds the screening's.
    expect(generation.attributes['switchboard.cost_usd']).toBe((call.body.usage as { cost: number }).cost);
    expect(generation.attributes['switchboard.cost_usd']).toBeCloseTo(SCREENING + MODEL, 12);
    expect(generation.startTimeUnixNano).toBeLessThanOrEqual(screening!.startTimeUnixNano);
    expect(screening!.endTimeUnixNano).toBeLessThanOrEqual(generation.endTimeUnixNano);
    // The screening call waited 40 ms on Beta: its span is its call, not a point.
    expect(Number(screening!.endTimeUnixNano - screening!.startTimeUnixNano) / 1e6).toBeGreaterThanOrEqual(30);
    const attempt = spans.find((span) => span.parentSpanId === generation.spanId && span.name === 'chat up-primary-alpha');
    expect(attempt!.startTimeUnixNano).toBeGreaterThanOrEqual(screening!.endTimeUnixNano);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
  });

  it('sits next to a tool loop\'s step spans in a stream', async () => {
    enqueue({ screened: true, delayMs: 10 });
    const call = await streamMessage(setup.gateway, messageBody('test/primary', { ...moderated(), tools: [{ type: 'gateway:datetime' }] }));
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const { spans, generation } = await traceOf(id);
    const children = spans.filter((span) => span.parentSpanId === generation.spanId).map((span) => span.name);
    expect(children).toEqual(['chat up-other-beta', 'step 1']);
    const screening = spans.find((span) => span.attributes['switchboard.plugin'] === 'moderation')!;
    expect(generation.startTimeUnixNano).toBeLessThanOrEqual(screening.startTimeUnixNano);
    expect(screening.endTimeUnixNano).toBeLessThanOrEqual(generation.endTimeUnixNano);
  });

  it('without moderation the generation has only its attempt under it', async () => {
    enqueue({ screened: false });
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const { spans, generation } = await traceOf(id);
    expect(setup.beta.requests).toHaveLength(0);
    expect(spans.map((span) => [span.name, span.parentSpanId === generation.spanId])).toEqual([
      ['chat test/primary', false],
      ['chat up-primary-alpha', true],
    ]);
    expect(spans.some((span) => 'switchboard.plugin' in span.attributes)).toBe(false);
    const record = await generationOf(setup.gateway, id);
    expect(generation.startTimeUnixNano).toBe(BigInt(Date.parse(record.created_at)) * 1_000_000n);
  });
});

describe('Langfuse: the moderation screening', () => {
  it('is a generation of its own carrying its cost; the trace\'s generation costs add up to the key\'s charge', async () => {
    enqueue({ screened: true });
    const call = await postMessage(setup.gateway, messageBody('test/primary', { ...moderated(), trace: { trace_id: 'lf-moderated' } }));
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const cost = (call.body.usage as { cost: number }).cost;
    const events = await langfuseEventsOf(id);
    expect(events.map((event) => [event.id, event.type])).toEqual([
      [`${id}-trace`, 'trace-create'],
      [`${id}-generation`, 'generation-create'],
      [`${id}-moderation`, 'generation-create'],
    ]);
    const [trace, request, screening] = events;
    expect(screening!.body).toMatchObject({
      id: `${id}-moderation`,
      traceId: 'lf-moderated',
      parentObservationId: id,
      name: 'moderation test/other',
      // The model the vendor's answer named, as the request's generation names its own.
      model: 'claude-scripted',
      usageDetails: { input: 90, output: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      metadata: { plugin: 'moderation', provider: 'beta', gateway_model: 'test/other', is_byok: false },
    });
    expect(screening!.body.costDetails.total).toBeCloseTo(SCREENING, 12);
    expect(request!.body.costDetails.total).toBeCloseTo(MODEL, 12);
    expect(request!.body.metadata.cost).toBe(cost);
    expect(screening!.body.costDetails.total + request!.body.costDetails.total).toBeCloseTo(cost, 12);
    expect(Date.parse(trace!.body.timestamp)).toBeLessThanOrEqual(Date.parse(screening!.body.startTime));
    expect(Date.parse(screening!.body.endTime)).toBeLessThanOrEqual(Date.parse(request!.body.endTime));
  });

  it('without moderation the request\'s generation carries the whole cost, as before', async () => {
    enqueue({ screened: false });
    const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, trace: { trace_id: 'lf-plain' } }));
    const id = call.headers.get('x-generation-id') ?? '';
    const events = await langfuseEventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['trace-create', 'generation-create']);
    expect(events[1]!.body.costDetails).toEqual({ total: (call.body.usage as { cost: number }).cost });
    expect(events[1]!.body.metadata).not.toHaveProperty('cost');
  });
});
