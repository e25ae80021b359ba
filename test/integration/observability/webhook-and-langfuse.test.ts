/**
 * Trace broadcast to a webhook and to Langfuse, each received by a server on 127.0.0.1: the webhook body is
 * the spec's `GenerationWebhookEvent`, signed with HMAC-SHA256 over the timestamp and body (verified here as a
 * receiver would), retried with backoff until a 2xx; Langfuse gets an ingestion batch (trace, span, generation
 * events with usage, cost, user, session and the caller's ids) with Basic authentication. Sampling sends a
 * trace whole or not at all.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { createDestination as createDestinationOn, deleteDestination } from './destination-receivers.ts';

const SIGNING_SECRET = 'whsec_0123456789abcdef0123';
let setup: RecordsGateway;
let hooks: CaptureServer;
let langfuse: CaptureServer;
let flaky: CaptureServer;

const createDestination = (body: Record<string, unknown>) => createDestinationOn(setup.gateway, body);

/** What a webhook receiver does: recompute the signature over `<t>.<raw body>` and compare. */
function verify(header: string | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', SIGNING_SECRET).update(`${match[1]}.${body}`).digest('hex');
  return expected === match[2] && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}

beforeAll(async () => {
  [hooks, langfuse, flaky] = await Promise.all([startCaptureServer(), startCaptureServer({ status: 207, body: { successes: [], errors: [] } }), startCaptureServer({ status: 500 })]);
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: '50' } });
  await createDestination({ name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook`, signing_secret: SIGNING_SECRET });
  await createDestination({ name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999', include_content: true });
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([hooks?.close(), langfuse?.close(), flaky?.close()]);
});
beforeEach(() => {
  setup.alpha.clear();
  setup.beta.clear();
});

async function generation(extra: Record<string, unknown>): Promise<{ id: string; cost: number }> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, ...extra }));
  expect(call.status).toBe(200);
  await setup.gateway.server.flushRecords();
  return { id: call.headers.get('x-generation-id') ?? '', cost: (call.body.usage as { cost: number }).cost };
}

describe('webhook destination', () => {
  it('posts the generation as a signed GenerationWebhookEvent that a receiver verifies', async () => {
    const { id, cost } = await generation({ user: 'user-3', trace: { trace_id: 'run-2024-11', generation_name: 'summarise', team: 'search' } });
    const requests = await hooks.waitFor(1);
    const delivery = requests.find((request) => JSON.parse(request.body.toString()).id === id);
    expect(delivery).toBeDefined();
    const raw = delivery!.body.toString('utf8');
    expect(verify(delivery!.headers['x-switchboard-signature'] as string, raw)).toBe(true);
    expect(verify(delivery!.headers['x-switchboard-signature'] as string, raw.replace('user-3', 'user-4'))).toBe(false);

    const event = JSON.parse(raw);
    expect(checkComponentSchema('GenerationWebhookEvent', event).errors).toEqual([]);
    expect(event).toMatchObject({
      type: 'generation.completed',
      id,
      trace: { trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), parent_span_id: null, generation_name: 'summarise', metadata: { team: 'search' } },
      data: { id, user: 'user-3', cost, status: 'success', usage: { input_tokens: 12, output_tokens: 29 }, usage_estimated: false, provider: 'alpha' },
    });
    expect(event.data).not.toHaveProperty('prompt');
    expect(raw).not.toContain(SIGNING_SECRET);
    expect(raw).not.toContain(setup.gateway.api_key);
  });

  it('retries a failing receiver with backoff, then drops and counts the delivery', async () => {
    const destination = await createDestination({ name: 'flaky', kind: 'webhook', endpoint: `${flaky.url}/hook`, signing_secret: SIGNING_SECRET });
    const before = flaky.requests.length;
    await generation({});
    await flaky.waitFor(before + 4);
    const attempts = flaky.requests.slice(before, before + 4);
    // Every attempt is signed afresh.
    for (const attempt of attempts) expect(verify(attempt.headers['x-switchboard-signature'] as string, attempt.body.toString())).toBe(true);
    const gaps = attempts.slice(1).map((attempt, index) => attempt.receivedAt - attempts[index]!.receivedAt);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]! * 0.9);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(flaky.requests.length).toBe(before + 4);
    const metrics = await (await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } })).text();
    expect(metrics).toMatch(/switchboard_broadcast_dropped_total\{kind="webhook",reason="failed"\} [1-9]/);
    await deleteDestination(setup.gateway, destination);
  });
});

describe('Langfuse destination', () => {
  it('sends an ingestion batch with trace, span and generation events, authenticated with the keys', async () => {
    const { id, cost } = await generation({ user: 'user-5', session_id: 'chat-77', system: 'Be brief.', trace: { trace_id: 'lf-trace-1', parent_span_id: 'lf-parent-1', trace_name: 'support', span_name: 'retrieval-step', env: 'prod' } });
    const deadline = Date.now() + 15_000;
    let batch: { id: string; type: string; timestamp: string; body: Record<string, any> }[] = [];
    while (!batch.some((event) => event.body.id === id)) {
      if (Date.now() > deadline) throw new Error('no Langfuse batch with the generation arrived');
      await new Promise((resolve) => setTimeout(resolve, 25));
      batch = langfuse.requests.filter((request) => request.path === '/api/public/ingestion').flatMap((request) => JSON.parse(request.body.toString()).batch);
    }
    const request = langfuse.requests.find((entry) => entry.path === '/api/public/ingestion');
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from('pk-lf-test:sk-lf-secret-9999').toString('base64')}`);

    const events = batch.filter((event) => event.id.startsWith(id));
    expect(events.map((event) => event.type)).toEqual(['trace-create', 'span-create', 'generation-create']);
    const [trace, span, created] = events;
    expect(trace!.body).toMatchObject({ id: 'lf-trace-1', name: 'support', userId: 'user-5', sessionId: 'chat-77', metadata: { env: 'prod' } });
    expect(span!.body).toMatchObject({ traceId: 'lf-trace-1', name: 'retrieval-step', parentObservationId: 'lf-parent-1' });
    expect(created!.body).toMatchObject({
      id,
      traceId: 'lf-trace-1',
      parentObservationId: span!.body.id,
      name: 'chat test/primary',
      // The vendor's model, as the answer named it (Langfuse's model definitions use these names).
      model: 'claude-sonnet-4-5-20250929',
      modelParameters: { max_tokens: 64 },
      usageDetails: { input: 12, output: 29, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      costDetails: { total: cost },
      level: 'DEFAULT',
      metadata: { env: 'prod', provider: 'alpha', status: 'success', requested_model: 'test/primary', gateway_model: 'test/primary' },
      input: { system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] },
      output: [expect.objectContaining({ type: 'text' })],
    });
    // Reported usage: only an estimate is marked (estimated-usage-broadcast.test.ts).
    expect(created!.body.metadata).not.toHaveProperty('usage_estimated');
    for (const event of events) expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
    expect(Date.parse(created!.body.endTime)).toBeGreaterThanOrEqual(Date.parse(created!.body.startTime));
  });
});

describe('sampling', () => {
  it('sends a trace whole or not at all: rate 0 sends nothing, every request of one trace goes together', async () => {
    const sampled = await createDestination({ name: 'half', kind: 'webhook', endpoint: `${hooks.url}/half`, signing_secret: SIGNING_SECRET, sampling_rate: 0.5 });
    const none = await createDestination({ name: 'none', kind: 'webhook', endpoint: `${hooks.url}/none`, signing_secret: SIGNING_SECRET, sampling_rate: 0 });
    try {
      const traces = Array.from({ length: 12 }, (_, index) => `sampling-trace-${index}`);
      const ids: Record<string, string[]> = {};
      for (const traceId of traces) {
        ids[traceId] = [(await generation({ trace: { trace_id: traceId } })).id, (await generation({ trace: { trace_id: traceId } })).id];
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const received = new Set(hooks.requests.filter((request) => request.path === '/half').map((request) => JSON.parse(request.body.toString()).id as string));
      const whole = traces.filter((traceId) => ids[traceId]!.every((id) => received.has(id)));
      const absent = traces.filter((traceId) => ids[traceId]!.every((id) => !received.has(id)));
      expect(whole.length + absent.length).toBe(traces.length);
      expect(whole.length).toBeGreaterThan(0);
      expect(absent.length).toBeGreaterThan(0);
      expect(hooks.requests.some((request) => request.path === '/none')).toBe(false);
    } finally {
      for (const id of [sampled, none]) await deleteDestination(setup.gateway, id);
    }
  });
});
