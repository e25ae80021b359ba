/**
 * Data regions over HTTP: a request for `europe` (the `X-Gateway-Region` header, or a host name configured in
 * SWITCHBOARD_REGIONAL_HOSTS) uses only endpoints recorded for Europe, on the provider's European host, and
 * only BYOK credentials valid for Europe (an OpenAI key sent as the JSON text `{"api_key", "region": "europe"}`),
 * never a cheaper endpoint or a key that is only valid elsewhere.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import {
  anthropicProviderYaml,
  catalogYaml,
  createCredential,
  deleteCredential,
  errorMessage,
  messageBody,
  metadataOf,
  modelYaml,
  postMessage,
  resetFakes,
  SHARED_KEYS,
  WITH_METADATA,
} from './routing-support.ts';

const EUROPE = { 'x-gateway-region': 'europe', ...WITH_METADATA };

let alphaGlobal: FakeUpstream;
let alphaEurope: FakeUpstream;
let beta: FakeUpstream;
let openaiGlobal: FakeUpstream;
let openaiEurope: FakeUpstream;
let gateway: TestGateway;
const created: string[] = [];

beforeAll(async () => {
  [alphaGlobal, alphaEurope, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeAnthropic()]);
  [openaiGlobal, openaiEurope] = await Promise.all([startFakeOpenAiChat(), startFakeOpenAiChat()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        anthropicProviderYaml('alpha', alphaGlobal, `regional_base_urls: { europe: "${alphaEurope.url}" }`),
        anthropicProviderYaml('beta', beta),
        // No shared OpenAI key: only the caller's credentials can serve OpenAI endpoints.
        `  openai: { family: openai-chat, api_key: "", base_url: "${openaiGlobal.baseURL}", regional_base_urls: { europe: "${openaiEurope.baseURL}", us: "${openaiGlobal.baseURL}" } }`,
      ],
      [
        // Beta is far cheaper, so without a region it goes first.
        modelYaml('test/regional', [
          { provider: 'alpha', model: 'up-regional-alpha', price: [1, 2], extra: 'regions: [global, europe]' },
          { provider: 'beta', model: 'up-regional-beta', price: [0.001, 0.001], extra: 'regions: [global, us]' },
        ]),
        modelYaml('test/us-only', [{ provider: 'beta', model: 'up-us-beta', price: [1, 2], extra: 'regions: [us]' }]),
        modelYaml('test/openai-model', [{ provider: 'openai', model: 'gpt-test', price: [1, 2], extra: 'regions: [global]' }]),
      ],
    ),
    env: { SWITCHBOARD_REGIONAL_HOSTS: 'europe=eu.gateway.test' },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alphaGlobal, alphaEurope, beta, openaiGlobal, openaiEurope].map((fake) => fake?.close()));
});

beforeEach(() => resetFakes(alphaGlobal, alphaEurope, beta, openaiGlobal, openaiEurope));
afterEach(async () => {
  for (const id of created.splice(0)) await deleteCredential(gateway, id);
});

describe('endpoints by region', () => {
  it('without a region the cheaper provider serves, on its global host', async () => {
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/regional'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Beta Cloud');
    expect(metadataOf(call).region).toBe('global');
  });

  it('X-Gateway-Region: europe uses only the endpoint recorded for Europe, on its European host', async () => {
    alphaEurope.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/regional'), EUROPE);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Alpha Cloud');
    expect(alphaEurope.requests).toHaveLength(1);
    expect(alphaEurope.lastRequest().headers['x-api-key']).toBe(SHARED_KEYS.alpha);
    expect(alphaGlobal.requests).toHaveLength(0);
    expect(beta.requests).toHaveLength(0);
    const metadata = metadataOf(call);
    expect(metadata.region).toBe('europe');
    expect(metadata.endpoints.available).toEqual([{ model: 'test/regional', provider: 'Alpha Cloud', selected: true }]);
  });

  it('when the European endpoint fails, the request fails rather than leave Europe', async () => {
    alphaEurope.enqueue(reply.error(529));
    const call = await postMessage(gateway, messageBody('test/regional'), EUROPE);

    expect(call.status).toBe(529);
    expect(beta.requests).toHaveLength(0);
    expect(alphaGlobal.requests).toHaveLength(0);
  });

  it('a model with no endpoint in Europe is a 404 naming the region', async () => {
    const call = await postMessage(gateway, messageBody('test/us-only'), EUROPE);

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toBe('No endpoint can serve this request: no endpoint of test/us-only serves region europe');
    expect(beta.requests).toHaveLength(0);
  });

  it('a request arriving on the configured European host name gets the European region', async () => {
    alphaEurope.enqueue(reply.fixture('anthropic-text'));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${gateway.baseUrl}/messages`, {
        method: 'POST',
        headers: { host: 'eu.gateway.test', authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...WITH_METADATA },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      request.on('error', reject);
      request.end(JSON.stringify(messageBody('test/regional')));
    });

    expect(answer.status, answer.body).toBe(200);
    expect((JSON.parse(answer.body) as { gateway_metadata: { region: string } }).gateway_metadata.region).toBe('europe');
    expect(alphaEurope.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(0);
  });
});

describe('BYOK credentials by region', () => {
  it('europe uses the key declared for Europe, on the European host, and never the key that is only global', async () => {
    created.push(await createCredential(gateway, { provider: 'openai', key: 'sk-openai-global-key-0001' }));
    created.push(await createCredential(gateway, { provider: 'openai', key: JSON.stringify({ api_key: 'sk-openai-europe-key-0001', region: 'europe' }) }));
    openaiEurope.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, messageBody('test/openai-model'), EUROPE);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(openaiEurope.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-openai-europe-key-0001']);
    expect(openaiGlobal.requests).toHaveLength(0);
    const metadata = metadataOf(call);
    expect(metadata).toMatchObject({ region: 'europe', is_byok: true });
    expect(metadata.attempts).toHaveLength(1);
  });

  it('with only a global key, a European request is refused with the reason', async () => {
    created.push(await createCredential(gateway, { provider: 'openai', key: 'sk-openai-global-key-0001' }));
    const call = await postMessage(gateway, messageBody('test/openai-model'), EUROPE);

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toBe('No endpoint can serve this request: no endpoint of test/openai-model serves region europe');
    expect([...openaiGlobal.requests, ...openaiEurope.requests]).toHaveLength(0);
  });

  it('a key declared for Europe does not serve a request for the US', async () => {
    created.push(await createCredential(gateway, { provider: 'openai', key: JSON.stringify({ api_key: 'sk-openai-europe-key-0001', region: 'europe' }) }));
    const call = await postMessage(gateway, messageBody('test/openai-model'), { 'x-gateway-region': 'us' });

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toContain('serves region us');
  });
});
