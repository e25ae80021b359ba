/**
 * The `moderation` plugin over HTTP: OpenAI's moderation endpoint (a fake speaking its wire format, called
 * through the official SDK) screens the input; a flagged input is a 200 refusal (JSON or stream) with no model
 * called, an unflagged one is served; a failing screen fails closed (503) or open (served, reported), as
 * configured; and a catalog model can be the moderation model, routed like any request.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { moderationAnswer, moderationResult, readFixture, reply, startFakeAnthropic, startFakeOpenAiModerations, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, errorMessage, metadataOf, modelYaml, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';

const MODERATOR_KEY = 'sk-moderator-shared-0001';
let moderations: FakeUpstream;
let model: FakeUpstream;
let guard: FakeUpstream;
let closed: TestGateway;
let open: TestGateway;
let byModel: TestGateway;

function catalog(upstreams: { moderations: FakeUpstream; model: FakeUpstream; guard: FakeUpstream }, plugins: string[]): string {
  return [
    catalogYaml(
      [
        anthropicProviderYaml('alpha', upstreams.model),
        anthropicProviderYaml('beta', upstreams.guard),
        `  moderator: { family: openai-chat, base_url: "${upstreams.moderations.baseURL}", api_key: "${MODERATOR_KEY}" }`,
      ],
      [modelYaml('test/chat', [{ provider: 'alpha', model: 'claude-chat', price: [1, 2] }]), modelYaml('test/guard', [{ provider: 'beta', model: 'claude-guard', price: [0.1, 0.2] }])],
    ),
    'plugins:',
    ...plugins,
    '',
  ].join('\n');
}

beforeAll(async () => {
  [moderations, model, guard] = await Promise.all([startFakeOpenAiModerations(), startFakeAnthropic(), startFakeAnthropic()]);
  const upstreams = { moderations, model, guard };
  [closed, open, byModel] = await Promise.all([
    startTestGateway({ catalogYaml: catalog(upstreams, ['  moderation: { engine: openai, provider: moderator, model: omni-moderation-latest, timeout_ms: 3000 }']) }),
    startTestGateway({ catalogYaml: catalog(upstreams, ['  moderation: { engine: openai, provider: moderator, model: omni-moderation-latest, failure_mode: fail_open }']) }),
    startTestGateway({ catalogYaml: catalog(upstreams, ['  moderation: { engine: model, model: test/guard }']) }),
  ]);
});
afterAll(async () => {
  await Promise.all([closed?.close(), open?.close(), byModel?.close()]);
  await Promise.all([moderations?.close(), model?.close(), guard?.close()]);
});
beforeEach(() => {
  for (const upstream of [moderations, model, guard]) upstream.clear();
});

// A text OpenAI's endpoint passed is not sent to it again by this gateway, so each request's default text is new.
function body(text = `How do I bake bread? (${randomUUID()})`, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'test/chat', max_tokens: 64, session_id: randomUUID(), messages: [{ role: 'user', content: text }], plugins: [{ id: 'moderation' }], ...extra };
}

const THREAT = 'I will hurt you.';

describe('moderation through OpenAI\'s moderation endpoint', () => {
  it('serves an input that is not flagged, after screening the system prompt and user turns with the gateway\'s key', async () => {
    moderations.enqueue(moderationAnswer([moderationResult(), moderationResult(), moderationResult()]));
    model.enqueue(reply.fixture('anthropic-text'));
    const messages = [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi! How can I help?' },
      { role: 'user', content: [{ type: 'text', text: 'How do I bake bread?' }] },
    ];
    const call = await postMessage(closed, body(undefined, { messages, system: 'Be brief.' }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('end_turn');
    expect(moderations.lastRequest().body).toEqual({ model: 'omni-moderation-latest', input: ['Be brief.', 'Hello', 'How do I bake bread?'] });
    expect(moderations.lastRequest().headers.authorization).toBe(`Bearer ${MODERATOR_KEY}`);
    expect(model.requests).toHaveLength(1);
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'moderation', status: 'passed' }] });
  });

  it('answers a flagged input with a refusal and calls no model', async () => {
    moderations.enqueue(moderationAnswer([moderationResult({ violence: 0.93, harassment: 0.41 })]));
    const call = await postMessage(closed, body(THREAT));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'test/chat',
      content: [],
      stop_reason: 'refusal',
      stop_details: { type: 'refusal', category: 'violence', explanation: 'The input was flagged by moderation (omni-moderation-latest: violence, harassment) and was not sent to any model.' },
      usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
    });
    expect(model.requests).toHaveLength(0);
  });

  it('answers a flagged streaming input with a refusal stream', async () => {
    moderations.enqueue(moderationAnswer([moderationResult({ 'self-harm/intent': 0.8 })]));
    const call = await streamMessage(closed, body(THREAT));

    expect(call.status).toBe(200);
    expect(call.events.map((event) => event.event)).toEqual(['message_start', 'message_delta', 'message_stop']);
    const delta = JSON.parse(call.events[1]?.data ?? '{}') as { delta: Record<string, unknown> };
    expect(delta.delta).toMatchObject({ stop_reason: 'refusal', stop_details: { type: 'refusal', category: 'self-harm/intent' } });
    expect(model.requests).toHaveLength(0);
  });

  it('fails closed with a 503 when the moderation upstream fails, calling no model', async () => {
    moderations.enqueue(reply.error(500));
    const call = await postMessage(closed, body());

    expect(call.status).toBe(503);
    expect(errorMessage(call)).toBe('The moderation plugin could not screen the input (the moderation upstream failed: 500); the request was not sent to any model');
    expect(model.requests).toHaveLength(0);
  });

  it('fails closed when the moderation upstream is slower than timeout_ms', async () => {
    moderations.enqueue({ ...moderationAnswer([moderationResult()]), delayMs: 10_000 });
    const call = await postMessage(closed, body());

    expect(call.status).toBe(503);
    expect(errorMessage(call)).toMatch(/did not answer within 3000 ms/);
    expect(model.requests).toHaveLength(0);
  });

  it('fails open when configured: the request is served unscreened and the metadata says so', async () => {
    moderations.enqueue(reply.error(503));
    model.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(open, body(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(model.requests).toHaveLength(1);
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'moderation', status: 'failed_open', note: 'the moderation upstream failed: 503' }] });
  });
});

function guardAnswer(verdict: Record<string, unknown>) {
  const recorded = readFixture<Record<string, unknown>>('anthropic', 'anthropic-text');
  return reply.json({ ...recorded, content: [{ type: 'text', text: JSON.stringify(verdict) }] });
}

describe('moderation by a catalog model', () => {
  it('routes the input to the moderation model and refuses what it flags', async () => {
    guard.enqueue(guardAnswer({ flagged: true, category: 'violence', explanation: 'A threat of physical harm.' }));
    const call = await postMessage(byModel, body(THREAT));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ stop_reason: 'refusal', stop_details: { category: 'violence', explanation: 'The input was flagged by moderation (test/guard). A threat of physical harm.' } });
    const screened = guard.lastRequest().body as { model: string; messages: { content: string }[]; system: string };
    expect(screened.model).toBe('claude-guard');
    expect(screened.messages[0]?.content).toBe(`<input>\n${THREAT}\n</input>`);
    expect(screened.system).toMatch(/content moderation classifier/);
    expect(model.requests).toHaveLength(0);
  });

  it('serves what the moderation model passes', async () => {
    guard.enqueue(guardAnswer({ flagged: false, category: null, explanation: 'A baking question.' }));
    model.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(byModel, body());

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('end_turn');
    expect(model.requests).toHaveLength(1);
  });

  it('fails closed when the moderation model answers no verdict', async () => {
    guard.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(byModel, body());

    expect(call.status).toBe(503);
    expect(errorMessage(call)).toMatch(/the moderation model test\/guard answered no/);
    expect(model.requests).toHaveLength(0);
  });
});
