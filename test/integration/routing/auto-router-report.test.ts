/**
 * What the auto-router chose, over HTTP: with `X-Gateway-Metadata: enabled`, `gateway_metadata.plugins` holds
 * an `auto-router` entry (the model, the difficulty judged, how many candidates, whether `pin_model` kept an
 * earlier choice), in a JSON answer and on a stream's `message_stop`, for `switchboard/auto` with or without
 * the plugin listed. And `pin_model` pins a conversation whether or not the client names a session.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { eventPayload, messageBody, metadataOf, postMessage, resetFakes, streamMessage, upstreamModelOf, WITH_METADATA } from './routing-support.ts';
import { startAutoRouterGateway } from './auto-router-support.ts';

let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ alpha, gateway } = await startAutoRouterGateway());
});

afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
});

beforeEach(() => resetFakes(alpha));

const TEST_MODELS = { id: 'auto-router', allowed_models: ['test/*'] };

// 3+ reasoning words (2 points), a code fence (1) and a tool (1): 4 of 8 points, difficulty 0.5, which picks
// the pricier of two candidates; a plain greeting scores 0 and picks the cheaper.
const HARD_TURN = 'Prove the algorithm is correct, analyze its complexity step by step:\n```\nfor (;;) {}\n```';
const TOOLS = [{ name: 'lookup', description: 'Looks a word up.', input_schema: { type: 'object', properties: { word: { type: 'string' } } } }];

interface Reported {
  id: string;
  [field: string]: unknown;
}

function pluginsOf(metadata: unknown): Reported[] {
  return ((metadata as { plugins?: Reported[] }).plugins ?? []) as Reported[];
}

/** A conversation's first turn, unique to the test so that no other test's sticky pin applies. */
function opening(): { role: 'user'; content: string } {
  return { role: 'user', content: `Hello, I am ${randomUUID()}` };
}

function hardFollowUp(first: { role: 'user'; content: string }): Record<string, unknown> {
  return { messages: [first, { role: 'assistant', content: 'Hi! How can I help?' }, { role: 'user', content: HARD_TURN }], tools: TOOLS };
}

describe('gateway_metadata.plugins reports the auto-router', () => {
  it('switchboard/auto without the plugin listed reports the model chosen, the difficulty and the candidates', async () => {
    const call = await postMessage(gateway, messageBody('switchboard/auto', { messages: [opening()] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const [report, ...others] = pluginsOf(metadataOf(call));
    expect(others).toEqual([]);
    expect(report).toMatchObject({ id: 'auto-router', model: call.body.model, difficulty: 0, difficulty_label: 'easy', signals: [], pinned: false });
    // Every catalog model the fake serves, and the shared presets' ones: at least the two test models.
    expect(report?.candidates).toBeGreaterThanOrEqual(2);
    expect(report).not.toHaveProperty('cost_tier');
  });

  it('a hard prompt reports its difficulty, its signals and the bounds it chose within', async () => {
    const call = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, cost_tier: 'standard' }], ...hardFollowUp(opening()) }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/pricey');
    expect(upstreamModelOf(alpha.requests[0] as never)).toBe('up-pricey');
    expect(pluginsOf(metadataOf(call))).toEqual([
      {
        id: 'auto-router',
        model: 'test/pricey',
        difficulty: 0.5,
        difficulty_label: 'medium',
        signals: ['code', 'reasoning words: prove, algorithm, analyze, complexity, step by step', '1 tools'],
        candidates: 1,
        cost_tier: 'standard',
        pinned: false,
      },
    ]);
  });

  it('a stream carries the report on message_stop, after the plugins before routing and before response-healing', async () => {
    const call = await streamMessage(gateway, messageBody('switchboard/auto', { plugins: [{ id: 'response-healing' }, TEST_MODELS], messages: [opening()] }), WITH_METADATA);

    expect(call.status).toBe(200);
    const stop = eventPayload(call, 'message_stop') as { gateway_metadata?: unknown };
    expect(stop.gateway_metadata).toBeDefined();
    const reports = pluginsOf(stop.gateway_metadata);
    expect(reports.map((report) => report.id)).toEqual(['auto-router', 'response-healing']);
    expect(reports[0]).toMatchObject({ model: 'test/cheap', candidates: 2, difficulty_label: 'easy', pinned: false });
  });

  it.each([false, true])('a tool loop (gateway tools) reports the choice its steps ran on (stream: %s)', async (stream) => {
    const steps = () =>
      alpha.enqueue(
        anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 50, output: 5 } }),
        anthropicStep({ text: 'It is noon in Paris.', usage: { input: 90, output: 6 } }),
      );
    steps();
    const body = messageBody('switchboard/auto', { plugins: [TEST_MODELS], messages: [opening()], tools: [{ type: 'gateway:datetime' }] });
    let metadata: unknown;
    if (stream) {
      const call = await streamMessage(gateway, body, WITH_METADATA);
      expect(call.status).toBe(200);
      metadata = (eventPayload(call, 'message_stop') as { gateway_metadata?: unknown }).gateway_metadata;
    } else {
      const call = await postMessage(gateway, body, WITH_METADATA);
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      metadata = metadataOf(call);
    }

    expect(alpha.requests.map((request) => upstreamModelOf(request))).toEqual(['up-cheap', 'up-cheap']);
    expect(pluginsOf(metadata)).toEqual([{ id: 'auto-router', model: 'test/cheap', difficulty: 0.125, difficulty_label: 'easy', signals: ['1 tools'], candidates: 2, pinned: false }]);
  });

  it('a request not auto-routed reports no auto-router entry', async () => {
    const call = await postMessage(gateway, messageBody('test/cheap', { plugins: [{ id: 'auto-router', enabled: false }, { id: 'response-healing' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(pluginsOf(metadataOf(call)).map((report) => report.id)).toEqual(['response-healing']);
  });
});

describe('pin_model', () => {
  it('keeps the conversation\'s first model without a session id (the conversation is the session) and says so', async () => {
    const first = opening();
    const start = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, pin_model: true }], messages: [first] }), WITH_METADATA);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body.model).toBe('test/cheap');
    expect(pluginsOf(metadataOf(start))[0]).toMatchObject({ model: 'test/cheap', pinned: false });

    // Unpinned, the harder follow-up would go to test/pricey (the test above): the pin is what keeps test/cheap.
    const next = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, pin_model: true }], ...hardFollowUp(first) }), WITH_METADATA);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.model).toBe('test/cheap');
    expect(pluginsOf(metadataOf(next))[0]).toMatchObject({ id: 'auto-router', model: 'test/cheap', difficulty: 0.5, candidates: 2, pinned: true });

    // Another conversation, with the same hard turn, is not pinned by this one.
    const other = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, pin_model: true }], ...hardFollowUp(opening()) }), WITH_METADATA);
    expect(other.body.model).toBe('test/pricey');
    expect(pluginsOf(metadataOf(other))[0]).toMatchObject({ pinned: false });
  });

  it('keeps the first model of a session the client names, across conversations of that session', async () => {
    const session = { ...WITH_METADATA, 'x-session-id': `auto-pin-${randomUUID()}` };
    const start = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, pin_model: true }], messages: [opening()] }), session);
    expect(start.body.model).toBe('test/cheap');

    const next = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [{ ...TEST_MODELS, pin_model: true }], ...hardFollowUp(opening()) }), session);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.model).toBe('test/cheap');
    expect(pluginsOf(metadataOf(next))[0]).toMatchObject({ model: 'test/cheap', pinned: true });
  });

  it('without pin_model the same conversation is routed by each turn\'s difficulty', async () => {
    const first = opening();
    const start = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [TEST_MODELS], messages: [first] }), WITH_METADATA);
    expect(start.body.model).toBe('test/cheap');

    const next = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [TEST_MODELS], ...hardFollowUp(first) }), WITH_METADATA);
    expect(next.body.model).toBe('test/pricey');
    expect(pluginsOf(metadataOf(next))[0]).toMatchObject({ model: 'test/pricey', pinned: false });
  });
});
