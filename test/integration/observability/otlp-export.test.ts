/**
 * Trace broadcast over OTLP/HTTP to a receiver on 127.0.0.1 that decodes each export as a collector would
 * (protobuf with the official proto definitions, and OTLP/JSON): the span tree (span_name span, generation
 * span, one child per attempt), the GenAI attributes, the caller's trace joined through `trace_id` and
 * `parent_span_id` or a W3C `traceparent` header, a `trace_name` root for a trace the request starts, custom
 * trace keys as attributes, the destination's headers, and no prompt unless the destination opts in. The
 * gateway's own `OTEL_EXPORTER_OTLP_*` variables (an operator's collector) never reach a destination. Every
 * GenAI name is the current conventions' one: no span of any export carries a deprecated or renamed name.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import type { DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { deprecatedGenAiAttributes } from '#test/helpers/genai-deprecated-names.ts';
import { ALPHA_FIRST, eventPayload, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { createDestination as createDestinationOn, receivedSpans, traceOf } from './destination-receivers.ts';

let setup: RecordsGateway;
let collector: CaptureServer;

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SPAN_KIND_SERVER = 2;
// OTLP span flags: SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE (0x100) and SPAN_FLAGS_CONTEXT_IS_REMOTE (0x200).
const REMOTE_PARENT_FLAGS = 0x300;
const SPAN_KIND_CLIENT = 3;
// The model the Anthropic fixture's answer names: a dated snapshot, not what the gateway asked for.
const FIXTURE_MODEL = 'claude-sonnet-4-5-20250929';
const STATUS_ERROR = 2;

const createDestination = (body: Record<string, unknown>) => createDestinationOn(setup.gateway, body);

/** The spans the collector received at `path` for one generation id. */
async function spansOf(path: string, generationId: string): Promise<DecodedSpan[]> {
  return (await traceOf(setup.gateway, collector, generationId, path)).spans;
}

function treeOf(spans: DecodedSpan[], generationId: string) {
  const generation = spans.find((span) => span.attributes['switchboard.generation.id'] === generationId);
  expect(generation).toBeDefined();
  const attempts = spans.filter((span) => span.parentSpanId === generation!.spanId);
  const parent = spans.find((span) => span.spanId === generation!.parentSpanId);
  return { generation: generation!, attempts, parent };
}

// What an operator might set for a collector of their own: none of it may reach a workspace's destination.
const OPERATOR_ENVIRONMENT = {
  OTEL_EXPORTER_OTLP_HEADERS: 'x-operator-token=operator-secret-1,authorization=Bearer operator-secret-2',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-operator-traces=operator-secret-3',
  OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/operator/v1/traces',
};
const savedEnvironment = Object.fromEntries(Object.keys(OPERATOR_ENVIRONMENT).map((name) => [name, process.env[name]]));

beforeAll(async () => {
  Object.assign(process.env, OPERATOR_ENVIRONMENT);
  collector = await startCaptureServer({ status: 200, body: {} });
  setup = await startRecordsGateway();
  await createDestination({ name: 'proto', kind: 'otlp', endpoint: `${collector.url}/proto/v1/traces`, protocol: 'http/protobuf', headers: { Authorization: 'Bearer collector-token-1' } });
  await createDestination({ name: 'json', kind: 'otlp', endpoint: `${collector.url}/json/v1/traces`, protocol: 'http/json', include_content: true });
});
afterAll(async () => {
  await setup?.close();
  await collector?.close();
  for (const [name, value] of Object.entries(savedEnvironment)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
beforeEach(() => {
  setup.alpha.clear();
  setup.beta.clear();
});

describe('OTLP/HTTP trace export', () => {
  it('joins the caller trace from `trace`, with a span_name span, the generation span and one child per attempt', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(
      setup.gateway,
      messageBody('test/primary', {
        ...ALPHA_FIRST,
        user: 'user-7',
        session_id: 'conversation-9',
        temperature: 0.3,
        trace: { trace_id: CALLER_TRACE, parent_span_id: CALLER_SPAN, trace_name: 'support-bot', span_name: 'agent-step', generation_name: 'answer-question', customer: 'acme', priority: 3 },
      }),
    );
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';

    for (const path of ['/proto/v1/traces', '/json/v1/traces']) {
      const spans = await spansOf(path, id);
      const { generation, attempts, parent } = treeOf(spans, id);
      expect(generation.traceId).toBe(CALLER_TRACE);
      expect(parent).toMatchObject({ name: 'agent-step', parentSpanId: CALLER_SPAN, traceId: CALLER_TRACE });
      // Only the span under the caller's has a remote parent (OTLP flags: 0x100 says known, 0x200 remote).
      expect(parent!.flags & REMOTE_PARENT_FLAGS).toBe(REMOTE_PARENT_FLAGS);
      for (const local of [generation, ...attempts]) expect(local.flags & REMOTE_PARENT_FLAGS).toBe(0x100);
      // The caller's trace already has a root: trace_name names no span of ours.
      expect(spans.some((span) => span.name === 'support-bot')).toBe(false);
      // The gateway's handling of the caller's request; its attempts are the CLIENT inference calls.
      expect(generation).toMatchObject({ name: 'answer-question', kind: SPAN_KIND_SERVER });
      expect(generation.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'beta',
        // What the client asked for (the catalog slug that served, so not sent again); what the vendor's answer named.
        'gen_ai.request.model': 'test/primary',
        'gen_ai.response.model': FIXTURE_MODEL,
        'gen_ai.request.max_tokens': 64,
        'gen_ai.request.temperature': 0.3,
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 29,
        'gen_ai.usage.cache_read.input_tokens': 0,
        'gen_ai.usage.cache_write.input_tokens': 0,
        'gen_ai.response.finish_reasons': ['end_turn'],
        // The id of the message the client got, to find its span from a logged answer.
        'gen_ai.response.id': call.body.id,
        'gen_ai.conversation.id': 'conversation-9',
        'user.id': 'user-7',
        'switchboard.cost_usd': (call.body.usage as { cost: number }).cost,
        'switchboard.metadata.customer': 'acme',
        'switchboard.metadata.priority': 3,
      });
      // Reported usage: only an estimate is marked (estimated-usage-broadcast.test.ts). Not streamed: the
      // conventions' `gen_ai.request.stream` is unset. The served slug is the one asked for: no `switchboard.model`.
      for (const key of ['switchboard.usage.estimated', 'gen_ai.request.stream', 'switchboard.model']) expect(generation.attributes).not.toHaveProperty([key]);
      expect(generation.resource['service.name']).toBe('switchboard');
      // GenAI conventions: an upstream call is named `{operation} {gen_ai.request.model}` (the vendor's model id
      // it asked for) and names the server it called, which trace backends draw as the dependency.
      const servers = [new URL(setup.alpha.url), new URL(setup.beta.url)];
      // The attempt that answered names the model its answer named; the failed one had no answer.
      expect(attempts.map((span) => [span.name, span.kind, span.attributes['gen_ai.request.model'], span.attributes['gen_ai.response.model'], span.attributes['gen_ai.provider.name'], span.attributes['switchboard.attempt.status'], span.status.code === STATUS_ERROR, span.attributes['server.address'], span.attributes['server.port']])).toEqual([
        ['chat up-primary-alpha', SPAN_KIND_CLIENT, 'up-primary-alpha', undefined, 'alpha', undefined, true, servers[0]!.hostname, Number(servers[0]!.port)],
        ['chat up-primary-beta', SPAN_KIND_CLIENT, 'up-primary-beta', FIXTURE_MODEL, 'beta', 'success', false, servers[1]!.hostname, Number(servers[1]!.port)],
      ]);
      // How the failed call failed, once: the conventions' `error.type`.
      expect(attempts[0]?.attributes['error.type']).toBe('overloaded');
      expect(attempts[0]!.startTimeUnixNano).toBeLessThanOrEqual(attempts[1]!.startTimeUnixNano);
      expect(generation.startTimeUnixNano).toBeLessThanOrEqual(attempts[0]!.startTimeUnixNano);
      expect(generation.endTimeUnixNano).toBeGreaterThanOrEqual(attempts[1]!.endTimeUnixNano);
    }
    // Content only where the destination opted in.
    const proto = treeOf(await spansOf('/proto/v1/traces', id), id).generation;
    const json = treeOf(await spansOf('/json/v1/traces', id), id).generation;
    expect(proto.attributes).not.toHaveProperty('gen_ai.input.messages');
    expect(JSON.parse(String(json.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Hello there' }] }]);
    expect(JSON.parse(String(json.attributes['gen_ai.output.messages']))[0].parts[0]).toMatchObject({ type: 'text', content: expect.stringContaining('Hello') });
  });

  it('joins the trace of a W3C traceparent header, and sends the destination headers, in each encoding', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), { traceparent });
    const id = call.headers.get('x-generation-id') ?? '';
    const { generation } = treeOf(await spansOf('/proto/v1/traces', id), id);
    expect(generation).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331', name: 'chat test/primary', kind: SPAN_KIND_SERVER });
    expect(generation.flags & REMOTE_PARENT_FLAGS).toBe(REMOTE_PARENT_FLAGS);
    const { attempts } = treeOf(await spansOf('/proto/v1/traces', id), id);
    expect(attempts.length).toBeGreaterThan(0);
    for (const attempt of attempts) expect(attempt.flags & REMOTE_PARENT_FLAGS).toBe(0x100);
    const started = eventPayload(call, 'message_start') as { message: { id: string; model: string } };
    // The client sees the slug; the span names the model the vendor's message_start named.
    expect(started.message.model).toBe('test/primary');
    expect(generation.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'gen_ai.usage.output_tokens': 30, 'gen_ai.response.id': started.message.id, 'gen_ai.request.model': 'test/primary', 'gen_ai.response.model': FIXTURE_MODEL });
    expect(generation.attributes['gen_ai.response.time_to_first_chunk']).toBeTypeOf('number');

    const proto = collector.requests.find((request) => request.path === '/proto/v1/traces');
    const json = collector.requests.find((request) => request.path === '/json/v1/traces');
    expect(proto?.headers['content-type']).toBe('application/x-protobuf');
    expect(proto?.headers.authorization).toBe('Bearer collector-token-1');
    expect(json?.headers['content-type']).toContain('application/json');
    expect(json?.headers.authorization).toBeUndefined();
    // Every export went to the destinations' own endpoints, uncompressed, without the operator's headers.
    expect(collector.requests.length).toBeGreaterThan(0);
    for (const request of collector.requests) {
      expect(['/proto/v1/traces', '/json/v1/traces']).toContain(request.path);
      expect(request.headers['content-encoding']).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain('operator-secret');
    }
  });

  it('hangs under the traceparent header\'s span when `trace.trace_id` names the same trace', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    // An instrumented client sends the header with every request; the caller also names the trace in the body.
    const traceparent = `00-${CALLER_TRACE}-b7ad6b7169203331-01`;
    const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, trace: { trace_id: CALLER_TRACE.toUpperCase() } }), { traceparent });
    const id = call.headers.get('x-generation-id') ?? '';
    const { generation } = treeOf(await spansOf('/proto/v1/traces', id), id);
    expect(generation).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: 'b7ad6b7169203331' });
  });

  it.each([
    ['an all-zero parent id', `00-${CALLER_TRACE}-0000000000000000-01`],
    ['version ff', `ff-${CALLER_TRACE}-b7ad6b7169203331-01`],
    ['a malformed value', `00-${CALLER_TRACE}-b7ad6b71`],
  ])('ignores a traceparent header with %s (W3C: an invalid header is ignored) and starts its own trace', async (_case, traceparent) => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, trace: { trace_name: 'own-run' } }), { traceparent });
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const spans = await spansOf('/proto/v1/traces', id);
    const { generation, parent } = treeOf(spans, id);
    expect(generation.traceId).not.toBe(CALLER_TRACE);
    expect(spans.every((span) => !/^0+$/.test(span.parentSpanId))).toBe(true);
    // Its own trace: the trace_name root is the topmost span.
    expect(parent).toMatchObject({ name: 'own-run', parentSpanId: '' });
  });

  it("adds no trace_name root to the caller's trace, which requests sharing a trace_id would each add again", async () => {
    const ids: string[] = [];
    for (let request = 0; request < 2; request += 1) {
      setup.alpha.enqueue(reply.fixture('anthropic-text'));
      const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, trace: { trace_id: CALLER_TRACE, trace_name: 'support-bot' } }));
      ids.push(call.headers.get('x-generation-id') ?? '');
    }
    for (const id of ids) {
      const spans = await spansOf('/proto/v1/traces', id);
      const { generation, parent } = treeOf(spans, id);
      expect(generation).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: '' });
      expect(parent).toBeUndefined();
      expect(spans.filter((span) => span.name === 'support-bot')).toEqual([]);
    }
  });

  it('starts its own trace with a trace_name root when the request joins none; a failure is an error span', async () => {
    setup.alpha.enqueue(reply.error(500));
    setup.beta.enqueue(reply.error(500));
    const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, trace: { trace_name: 'nightly-job' } }));
    expect(call.status).toBe(502);
    const id = call.headers.get('x-generation-id') ?? '';
    const spans = await spansOf('/proto/v1/traces', id);
    const { generation, parent, attempts } = treeOf(spans, id);
    expect(parent).toMatchObject({ name: 'nightly-job', parentSpanId: '' });
    expect(generation.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(generation.status.code).toBe(STATUS_ERROR);
    expect(generation.attributes['error.type']).toBe('AllAttemptsFailedError');
    expect(attempts).toHaveLength(2);
  });

  it('sends no span under a deprecated or renamed GenAI name, in either encoding', async () => {
    // Every export of the tests above: streamed and not, failed attempts and answers, content and none.
    const spans = receivedSpans(collector);
    expect(new Set(spans.map((span) => span.name)).size).toBeGreaterThan(3);
    expect(deprecatedGenAiAttributes(spans)).toEqual([]);
    // The renamed count is still sent, under its current name.
    expect(spans.some((span) => span.attributes['gen_ai.usage.cache_write.input_tokens'] !== undefined)).toBe(true);
  });
});
