/**
 * The web plugins and sticky sessions over HTTP: a session named by no id is keyed by how the conversation
 * starts as the client wrote it, so search results the `web` plugin adds to the first user turn do not give
 * the first request a key of its own. Test model `test/web` runs on Alpha (50,000 times cheaper, so the
 * price-weighted spread tries it first) and Beta; the session is pinned to Beta by making Alpha fail once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, metadataOf, modelYaml, postMessage, resetFakes } from '#test/integration/routing/routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let searxng: ScriptedServer;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta, searxng] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeSearxng()]);
  const models = [
    modelYaml('test/web', [
      { provider: 'alpha', model: 'up-web-alpha', price: [0.001, 0.001] },
      { provider: 'beta', model: 'up-web-beta', price: [50, 50] },
    ]),
  ];
  gateway = await startTestGateway({
    catalogYaml: [
      catalogYaml([anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)], models),
      'server_tools:',
      `  web_search: { backend: searxng, base_url: "${searxng.origin}", default_max_results: 2, max_results: 5 }`,
      '',
    ].join('\n'),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close(), searxng?.close()]);
});
beforeEach(() => {
  resetFakes(alpha, beta);
  searxng.requests.length = 0;
});

const RESULTS = [searxngResult({ url: 'https://tides.example.org/fundy', title: 'Bay of Fundy tides', content: 'Up to 16 m.' })];
const FIRST = 'How high are the tides in the Bay of Fundy?';

function body(messages: unknown[]): Record<string, unknown> {
  return { model: 'test/web', max_tokens: 64, system: `web sticky ${Date.now()}`, messages, plugins: [{ id: 'web' }] };
}

describe('the web plugin with a session keyed by its content', () => {
  it('keeps the conversation on the provider that served its first request', async () => {
    const request = body([{ role: 'user', content: FIRST }]);
    searxng.enqueue(searxngAnswer(FIRST, RESULTS));
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const first = await postMessage(gateway, request, WITH_METADATA);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.provider).toBe('Beta Cloud');
    // The first user turn the upstream read carried the results; the client's did not.
    expect(JSON.stringify((beta.lastRequest().body as { messages: unknown[] }).messages[0])).toContain('Bay of Fundy tides');
    resetFakes(alpha, beta);

    const next = [{ role: 'user', content: FIRST }, { role: 'assistant', content: 'Up to 16 metres.' }, { role: 'user', content: 'And in winter?' }];
    searxng.enqueue(searxngAnswer('And in winter?', RESULTS));
    alpha.enqueue(reply.fixture('anthropic-text'));
    beta.enqueue(reply.fixture('anthropic-text'));
    const second = await postMessage(gateway, { ...request, messages: next }, WITH_METADATA);

    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.provider).toBe('Beta Cloud');
    expect(metadataOf(second).strategy).toBe('sticky');
    expect(alpha.requests).toHaveLength(0);
  });
});
