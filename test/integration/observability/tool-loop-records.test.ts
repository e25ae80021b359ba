/**
 * The generation record of a server-side tool loop, read back over HTTP with `GET /generations/{id}`: every
 * step as the answer's `gateway_metadata.steps` lists it, tokens and cost summed over the steps; and a loop
 * that fails in its second step still records the first step, its tokens and its cost (what the key was
 * charged), JSON and stream alike. Over OTLP, each finished step is a span under the generation span, with
 * the step's attempts under it (the served one carrying the step's call: provider, usage, finish reason, which
 * the step's span does not repeat, nor any deprecated GenAI name); over Langfuse, the request is a span and each finished step a generation
 * under it with its own usage and cost (Langfuse sums a trace's generation costs: the steps add up to the answer's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import type { DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { deprecatedGenAiAttributes } from '#test/helpers/genai-deprecated-names.ts';
import { anthropicStep, reply, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { generationOf } from './observability-support.ts';
import { arrived, createDestination, ingestedEvents, INGESTION_PATH, startTraceReceivers, traceOf, type IngestionEvent } from './destination-receivers.ts';
import { loopBody, useLoopGateway } from '#test/integration/server-tools/loop/loop-support.ts';

const setup = useLoopGateway();
let collector: CaptureServer;
let langfuse: CaptureServer;

beforeAll(async () => {
  ({ collector, langfuse } = await startTraceReceivers());
  const destinations = [
    { name: 'traces', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/protobuf' },
    { name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-loop', secret_key: 'sk-lf-loop-secret', include_content: true },
  ];
  for (const body of destinations) await createDestination(setup.gateway, body);
});
afterAll(async () => {
  await Promise.all([collector?.close(), langfuse?.close()]);
});

/** The spans of one generation's trace, once the collector has them. */
async function spansOf(generationId: string): Promise<DecodedSpan[]> {
  return (await traceOf(setup.gateway, collector, generationId)).spans;
}

/** The Langfuse events of one generation, once the receiver has its request's observation (a generation's events travel in one batch). */
async function langfuseEventsOf(generationId: string): Promise<IngestionEvent[]> {
  await setup.gateway.server.flushRecords();
  return arrived(`Langfuse events of ${generationId}`, () => {
    const events = ingestedEvents(langfuse, INGESTION_PATH).filter((event) => event.id.startsWith(generationId));
    return events.some((event) => event.body.id === generationId) ? events : undefined;
  });
}

/** The answer's `usage.cost`: the JSON body's, or a stream's `message_delta`'s. */
function answerCost(body: string, stream: boolean): number {
  if (!stream) return (JSON.parse(body) as { usage: { cost: number } }).usage.cost;
  const lines = body.trim().split('\n');
  const delta = lines[lines.lastIndexOf('message_delta') + 1] ?? '{}';
  return (JSON.parse(delta) as { usage: { cost: number } }).usage.cost;
}
const DATETIME = { type: 'gateway:datetime' };
// On test/claude ($3 in, $15 out per million): 1000 x 3 + 100 x 15 = 4500 micro-dollars, then 3600 + 150.
const TOOL_STEP: ScriptedStep = { text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 1000, output: 100 } };
const ANSWER: ScriptedStep = { text: 'It is noon.', usage: { input: 1200, output: 10 } };
const ONLY_ALPHA = { provider: { order: ['alpha'], allow_fallbacks: false } };

/** The spending of the period `GET /keys` shows, summed over the account's keys (only the test's inference key spends). */
async function keysSpending(): Promise<number> {
  const listed = await callApi<{ data: { usage?: { cost: number } | null }[] }>(setup.gateway.baseUrl, 'GET', '/keys?limit=100', { key: setup.gateway.management_key });
  expect(listed.status).toBe(200);
  return listed.body.data.reduce((sum, key) => sum + (key.usage?.cost ?? 0), 0);
}

/** Sends a loop request on Alpha alone as the client would, and returns its generation id, status and what it read. */
function send(stream: boolean): Promise<{ id: string; status: number; body: string }> {
  return sendBody(loopBody('test/claude', [DATETIME], { ...ONLY_ALPHA, stream }));
}

async function sendBody(request: Record<string, unknown>): Promise<{ id: string; status: number; body: string }> {
  const stream = request.stream === true;
  const response = await fetch(`${setup.gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json', 'x-gateway-metadata': 'enabled' },
    body: JSON.stringify(request),
  });
  let body = '';
  if (stream && response.status === 200) {
    for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) body += `${event.event}\n${event.data}\n`;
  } else {
    body = await response.text();
  }
  return { id: response.headers.get('request-id') ?? '', status: response.status, body };
}

describe.each([false, true])('the record of a tool loop (stream: %s)', (stream) => {
  it('lists each step as gateway_metadata.steps does, with tokens and cost summed over the steps', async () => {
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const sent = await send(stream);
    expect(sent.status, sent.body).toBe(200);
    const record = await generationOf(setup.gateway, sent.id);

    expect(record.status).toBe('success');
    expect(record.tool_steps).toHaveLength(2);
    expect(record.tool_steps[0]).toMatchObject({ step: 1, model: 'test/claude', provider: 'Alpha Cloud', stop_reason: 'tool_use', tools_called: ['datetime'], cost: 0.0045 });
    expect(record.tool_steps[1]).toMatchObject({ step: 2, stop_reason: 'end_turn', tools_called: [], usage: { input_tokens: 1200, output_tokens: 10 } });
    expect(record.tool_steps[1].cost).toBeCloseTo(0.00375, 12);
    expect(record.usage).toMatchObject({ input_tokens: 2200, output_tokens: 110 });
    expect(record.cost).toBeCloseTo(0.00825, 12);
    // The same steps the client was shown.
    const lastJson = stream ? sent.body.trim().split('\n').at(-1) ?? '{}' : sent.body;
    expect((JSON.parse(lastJson) as { gateway_metadata: { steps: unknown } }).gateway_metadata.steps).toEqual(record.tool_steps);
  });

  it('a loop failing in its second step records the first: its tokens, its cost, the failure; the key is charged the same', async () => {
    const spentBefore = await keysSpending();
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), reply.error(500));
    const sent = await send(stream);
    // JSON: the error answer; a stream had started with the first step, so it ends with an in-band error.
    if (stream) {
      expect(sent.status).toBe(200);
      expect(sent.body.split('\n')).toContain('error');
    } else {
      expect(sent.status).toBeGreaterThanOrEqual(500);
    }
    const record = await generationOf(setup.gateway, sent.id);

    expect(record.status).toBe('error');
    expect(record.tool_steps).toEqual([expect.objectContaining({ step: 1, tools_called: ['datetime'], cost: 0.0045 })]);
    expect(record.usage).toMatchObject({ input_tokens: 1000, output_tokens: 100 });
    expect(record.cost).toBe(0.0045);
    expect(record.attempts.map((attempt: { status: string }) => attempt.status)).toEqual(['success', expect.not.stringMatching(/^success$/)]);
    // GET /keys shows the key's spending (a key without limits too): the step it was answered.
    await expect.poll(async () => (await keysSpending()) - spentBefore, { timeout: 10_000 }).toBeCloseTo(0.0045, 12);
  });

  it('each finished step is a span under the generation, with its attempts under it', async () => {
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), reply.error(529));
    setup.beta.enqueue(anthropicStep(ANSWER));
    const sent = await sendBody(loopBody('test/claude', [DATETIME], { provider: { order: ['alpha', 'beta'] }, stream }));
    expect(sent.status, sent.body).toBe(200);
    const spans = await spansOf(sent.id);
    const generation = spans.find((span) => span.attributes['switchboard.generation.id'] === sent.id)!;
    const steps = spans.filter((span) => span.parentSpanId === generation.spanId);
    expect(steps.map((span) => [span.name, span.attributes['switchboard.step'], span.attributes['switchboard.step.tools_called']])).toEqual([
      ['step 1', 1, ['datetime']],
      ['step 2', 2, []],
    ]);
    expect(steps[0]!.attributes['switchboard.cost_usd']).toBe(0.0045);
    // A step is no inference call: the attempt that served it is, and only it carries the call's GenAI attributes.
    for (const step of steps) expect(Object.keys(step.attributes).filter((key) => key.startsWith('gen_ai.'))).toEqual([]);
    const under = (step: DecodedSpan) => spans.filter((span) => span.parentSpanId === step.spanId);
    const call = (span: DecodedSpan) => [span.attributes['gen_ai.provider.name'], span.attributes['switchboard.attempt.status'] ?? span.attributes['error.type'], span.attributes['gen_ai.usage.output_tokens']];
    expect(under(steps[0]!).map(call)).toEqual([['alpha', 'success', 100]]);
    expect(under(steps[0]!)[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.response.finish_reasons': ['tool_use'] });
    // Step 2 failed over from Alpha (529) to Beta: both attempts are the step's.
    expect(under(steps[1]!).map(call)).toEqual([['alpha', 'overloaded', undefined], ['beta', 'success', 10]]);
    expect(deprecatedGenAiAttributes(spans)).toEqual([]);
  });

  it('over Langfuse the request is a span and each finished step a generation under it, the step costs adding up to the answer', async () => {
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const sent = await send(stream);
    expect(sent.status, sent.body).toBe(200);
    const events = await langfuseEventsOf(sent.id);
    expect(events.map((event) => event.type)).toEqual(['trace-create', 'span-create', 'generation-create', 'generation-create']);
    const [, request, ...steps] = events;
    expect(request!.body).toMatchObject({ id: sent.id, name: 'chat test/claude', level: 'DEFAULT', metadata: { steps: 2, status: 'success', usage: { input: 2200, output: 110 } } });
    expect(request!.body).not.toHaveProperty('costDetails');
    // The destination opted into content: on the request's observation only.
    expect(request!.body.input).toMatchObject({ messages: [{ role: 'user', content: 'What time is it in Paris?' }] });
    // Each step's model is the one its answer named (the scripted steps' `claude-scripted`); the slug is metadata.
    expect(steps.map((step) => [step.body.name, step.body.parentObservationId, step.body.traceId, step.body.model, step.body.metadata.gateway_model])).toEqual([
      ['step 1', sent.id, request!.body.traceId, 'claude-scripted', 'test/claude'],
      ['step 2', sent.id, request!.body.traceId, 'claude-scripted', 'test/claude'],
    ]);
    expect(steps[0]!.body).toMatchObject({ usageDetails: { input: 1000, output: 100 }, costDetails: { total: 0.0045 }, metadata: { step: 1, provider: 'alpha', stop_reason: 'tool_use', tools_called: ['datetime'] } });
    expect(steps[1]!.body).toMatchObject({ usageDetails: { input: 1200, output: 10 }, metadata: { step: 2, stop_reason: 'end_turn', tools_called: [] } });
    expect(steps[1]!.body.costDetails.total).toBeCloseTo(0.00375, 12);
    for (const step of steps) {
      expect(step.body).not.toHaveProperty('input');
      expect(Date.parse(step.body.endTime)).toBeGreaterThanOrEqual(Date.parse(step.body.startTime));
    }
    expect(steps[0]!.body.costDetails.total + steps[1]!.body.costDetails.total).toBe(answerCost(sent.body, stream));
  });
});
