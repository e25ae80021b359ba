/**
 * What routing and the records hear of a streamed refusal that moved on to the next model, over HTTP, held
 * to the JSON answer's rules: the refused stream is an attempt that answered but did not serve (no latency
 * sample for its endpoint, no sticky pin), its status is `refusal` in the attempts the client and the
 * generation record see, and the plugins report for the model that served the answer (response-healing heals
 * its text only, not the refused model's before the block). Model `test/main` runs
 * on Alpha and Beta at one price, `test/backup` on Gamma, `test/small` (a 20,000-token context) on Alpha.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { anthropicProviderYaml, catalogYaml, eventPayload, messageBody, metadataOf, modelYaml, postMessage, resetFakes, streamMessage, WITH_METADATA, type RoutingMetadata } from './routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gamma: FakeUpstream;
let gateway: TestGateway;

const SMALL_MODEL = [
  '  test/small:',
  '    name: test/small',
  '    context_length: 20000',
  '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
  '    endpoints:',
  `      - { provider: alpha, model: up-small-alpha, pricing: { input: 1, output: 2 } }`,
].join('\n');

beforeAll(async () => {
  [alpha, beta, gamma] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta), anthropicProviderYaml('gamma', gamma)],
      [
        modelYaml('test/main', [
          { provider: 'alpha', model: 'up-main-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-main-beta', price: [1, 2] },
        ]),
        modelYaml('test/backup', [{ provider: 'gamma', model: 'up-backup-gamma', price: [1, 2] }]),
        SMALL_MODEL,
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close(), gamma?.close()]);
});

beforeEach(() => resetFakes(alpha, beta, gamma));

const statuses = (metadata: RoutingMetadata) => metadata.attempts.map((attempt) => `${attempt.model}@${attempt.provider}:${attempt.status}`);

describe('a streamed refusal that moved on to the next model', () => {
  it('gives the refused endpoint no latency sample: a later latency sort still finds none measured', async () => {
    // Beta refuses; Gamma serves. The refused endpoint answered but served nothing (as in a JSON answer).
    beta.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const streamed = await streamMessage(gateway, messageBody('test/main', { provider: { order: ['beta'] }, fallbacks: [{ model: 'test/backup' }] }));
    expect(streamed.status).toBe(200);
    expect(eventPayload(streamed, 'message_delta')).toMatchObject({ delta: { stop_reason: 'end_turn' } });

    // Sorted by latency, an endpoint measured comes before one not measured; with none measured, catalog order.
    alpha.enqueue(reply.fixture('anthropic-text.json'));
    const sorted = await postMessage(gateway, messageBody('test/main', { provider: { sort: 'latency' } }), WITH_METADATA);
    expect(sorted.status, JSON.stringify(sorted.body)).toBe(200);
    expect(statuses(metadataOf(sorted))).toEqual(['test/main@Alpha Cloud:success']);
    expect(beta.requests).toHaveLength(1);
  });

  it('lists the refused attempt as a refusal, in the metadata and the generation record, as the JSON answer does', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const streamed = await streamMessage(gateway, messageBody('test/main', { provider: { order: ['alpha'] }, fallbacks: [{ model: 'test/backup' }] }), WITH_METADATA);
    const stop = eventPayload(streamed, 'message_stop') as { gateway_metadata: RoutingMetadata };
    expect(statuses(stop.gateway_metadata)).toEqual(['test/main@Alpha Cloud:refusal', 'test/backup@Gamma Cloud:success']);
    const record = await generationOf(gateway, streamed.headers.get('request-id') ?? '');
    expect(record).toMatchObject({ model: 'test/backup', status: 'success' });
    expect(record.attempts.map((attempt: Record<string, unknown>) => `${String(attempt.model)}:${String(attempt.status)}`)).toEqual(['test/main:refusal', 'test/backup:success']);

    alpha.enqueue(reply.fixture('anthropic-refusal.json'));
    gamma.enqueue(reply.fixture('anthropic-text.json'));
    const json = await postMessage(gateway, messageBody('test/main', { provider: { order: ['alpha'] }, fallbacks: [{ model: 'test/backup' }] }), WITH_METADATA);
    expect(statuses(metadataOf(json))).toEqual(statuses(stop.gateway_metadata));
  });

  it('a refusal that stays the answer (no later model answered) is a refusal in the stream metadata too', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.error(500));
    const streamed = await streamMessage(gateway, messageBody('test/main', { provider: { order: ['alpha'] }, fallbacks: [{ model: 'test/backup' }] }), WITH_METADATA);
    const stop = eventPayload(streamed, 'message_stop') as { gateway_metadata: RoutingMetadata };
    expect(eventPayload(streamed, 'message_delta')).toMatchObject({ delta: { stop_reason: 'refusal' } });

    alpha.enqueue(reply.fixture('anthropic-refusal.json'));
    gamma.enqueue(reply.error(500));
    const json = await postMessage(gateway, messageBody('test/main', { provider: { order: ['alpha'] }, fallbacks: [{ model: 'test/backup' }] }), WITH_METADATA);
    expect(statuses(metadataOf(json))).toEqual(['test/main@Alpha Cloud:refusal', 'test/backup@Gamma Cloud:server_error']);
    expect(statuses(stop.gateway_metadata)).toEqual(statuses(metadataOf(json)));
  });

  it("the plugins report for the model that served: context-compression names the serving model's context length", async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const body = messageBody('test/small', { fallbacks: [{ model: 'test/backup' }], plugins: [{ id: 'context-compression' }] });
    const streamed = await streamMessage(gateway, body, WITH_METADATA);
    const stop = eventPayload(streamed, 'message_stop') as { gateway_metadata: { plugins?: { id: string; context_length?: number }[] } };
    const report = stop.gateway_metadata.plugins?.find((entry) => entry.id === 'context-compression');
    expect(report, JSON.stringify(stop)).toMatchObject({ context_length: 200000 });

    alpha.enqueue(reply.fixture('anthropic-refusal.json'));
    gamma.enqueue(reply.fixture('anthropic-text.json'));
    const json = await postMessage(gateway, body, WITH_METADATA);
    const plugins = (json.body.gateway_metadata as { plugins?: { id: string; context_length?: number }[] }).plugins;
    expect(plugins?.find((entry) => entry.id === 'context-compression')).toMatchObject({ context_length: 200000 });
  });
});

describe('response-healing after a refusal that moved on', () => {
  const SCHEMA = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
  const REFUSED = anthropicStep({ text: "Sorry, I can't help with that.", stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber', explanation: 'No.' }, usage: { input: 12, output: 3 } });
  const SERVED = anthropicStep({ text: '{"total": 42}', usage: { input: 12, output: 5 } });
  const body = messageBody('test/main', {
    provider: { order: ['alpha'] },
    fallbacks: [{ model: 'test/backup' }],
    output_config: { format: { type: 'json_schema', schema: SCHEMA } },
    plugins: [{ id: 'response-healing' }],
  });

  it.each([false, true])("heals (and reports on) the serving model's text only, not the refused model's before the block (stream: %s)", async (stream) => {
    alpha.enqueue(REFUSED);
    gamma.enqueue(SERVED);
    let plugins: unknown;
    let texts: string[];
    if (stream) {
      const call = await streamMessage(gateway, body, WITH_METADATA);
      plugins = (eventPayload(call, 'message_stop') as { gateway_metadata: { plugins?: unknown } }).gateway_metadata.plugins;
      const starts = call.events.filter((event) => event.event === 'content_block_start').map((event) => (JSON.parse(event.data) as { content_block: { type: string } }).content_block.type);
      expect(starts).toEqual(['text', 'fallback', 'text']);
      texts = call.events
        .filter((event) => event.event === 'content_block_delta')
        .map((event) => (JSON.parse(event.data) as { delta: { text?: string } }).delta.text ?? '');
    } else {
      const call = await postMessage(gateway, body, WITH_METADATA);
      plugins = (call.body.gateway_metadata as { plugins?: unknown }).plugins;
      const content = call.body.content as { type: string; text?: string }[];
      expect(content.map((block) => block.type)).toEqual(['text', 'fallback', 'text']);
      texts = content.map((block) => block.text ?? '');
    }
    expect(texts.join('')).toBe('Sorry, I can\'t help with that.{"total": 42}');
    expect(plugins).toEqual([{ id: 'response-healing', status: 'valid' }]);
  });
});
