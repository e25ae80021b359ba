/**
 * Model retirements over HTTP, on the built-in catalog with fake Anthropic and Bedrock upstreams and the
 * gateway's clock placed on a date. Anthropic retired Claude Sonnet 4 on its API on 2026-06-15 and retires
 * Sonnet 4.5 there on 2026-11-30; Bedrock keeps its own schedule and still serves both. A request the Anthropic
 * SDK sends with the retired id is served by Bedrock and never reaches Anthropic; a request that allows only
 * Anthropic gets a 404 that names the retirement and the provider still serving the model. On the day Sonnet
 * 4.5 retires, the same request that reached Anthropic the day before is refused, and `GET /models` shows each
 * endpoint's lifecycle as of the gateway's clock.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { anthropicStep, bedrockStep, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, errorMessage, messageBody, postMessage, resetFakes } from './routing-support.ts';

const DAY_BEFORE = Date.parse('2026-11-29T12:00:00Z');
const RETIREMENT_DAY = Date.parse('2026-11-30T00:00:00Z');
let clock = DAY_BEFORE;

let anthropic: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [anthropic, bedrock] = await Promise.all([startFakeAnthropic(), startFakeBedrock()]);
  gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-retired-0001" }`,
      // Sonnet 4's and Opus 4.1's Bedrock profiles are regional (`us.`): their calls go to the regional host.
      `  bedrock: { base_url: "${bedrock.url}", regional_base_urls: { us: "${bedrock.url}", europe: "${bedrock.url}" }, api_key: "bedrock-retired-0001" }`,
      '',
    ].join('\n'),
    now: () => clock,
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), bedrock?.close()]);
});
beforeEach(() => {
  clock = DAY_BEFORE;
  resetFakes(anthropic, bedrock);
});

async function listModels(): Promise<ModelList> {
  const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  const body = (await response.json()) as ModelList;
  expect(response.status).toBe(200);
  expect(checkResponse({ path: '/models', method: 'get', status: 200, contentType: 'application/json', body }).errors).toEqual([]);
  return body;
}

function endpointOf(list: ModelList, model: string, provider: string) {
  return list.data.find((entry) => entry.id === model)?.endpoints.find((endpoint) => endpoint.provider === provider);
}

describe('an endpoint its provider has retired', () => {
  it('is never sent the Anthropic SDK’s request for the retired id: Bedrock serves it', async () => {
    bedrock.enqueue(bedrockStep({ text: 'Served by Bedrock.', usage: { input: 12, output: 4 } }));
    const message = await anthropicClient(gateway).messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
      // Anthropic first, were it still serving the model: an order is a preference, and a retirement overrides it.
      ...({ provider: { order: ['anthropic', 'bedrock'] } } as object),
    });

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Served by Bedrock.' })]);
    expect(anthropic.requests).toHaveLength(0);
    expect(bedrock.requests.map((request) => decodeURIComponent(request.params.modelId ?? ''))).toEqual(['us.anthropic.claude-sonnet-4-20250514-v1:0']);
  });

  it('answers a request that allows only the retired provider with a 404 naming the retirement and who still serves it', async () => {
    const call = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4', { provider: { only: ['anthropic'] } }));

    expect(call.status).toBe(404);
    expect((call.body.error as { type?: string }).type).toBe('not_found_error');
    expect(errorMessage(call)).toBe(
      'No endpoint can serve this request: provider.only excludes every endpoint of anthropic/claude-sonnet-4 still serving it (anthropic/claude-sonnet-4 was retired on anthropic on 2026-06-15; still served by bedrock)',
    );
    expect(anthropic.requests).toHaveLength(0);
    expect(bedrock.requests).toHaveLength(0);
  });

  it('gives the Anthropic SDK a NotFoundError with that message', async () => {
    const attempt = anthropicClient(gateway).messages.create({
      model: 'anthropic/claude-opus-4.1',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello' }],
      // The gateway's routing preferences, which the SDK passes through as an extra body field.
      ...({ provider: { only: ['anthropic'] } } as object),
    });
    await expect(attempt).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(attempt).rejects.toThrow(/anthropic\/claude-opus-4\.1 was retired on anthropic on 2026-08-05; still served by bedrock/);
    expect(anthropic.requests).toHaveLength(0);
  });
});

describe('a retirement the gateway reaches while running', () => {
  it('sends Sonnet 4.5 to Anthropic the day before and refuses it there from 2026-11-30', async () => {
    anthropic.enqueue(anthropicStep({ text: 'Still here.', usage: { input: 10, output: 3 } }));
    const before = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { provider: { only: ['anthropic'] } }));
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(anthropic.requests.map((request) => (request.body as { model?: string }).model)).toEqual(['claude-sonnet-4-5']);

    clock = RETIREMENT_DAY;
    const after = await postMessage(gateway, messageBody('anthropic/claude-sonnet-4.5', { provider: { only: ['anthropic'] } }));
    expect(after.status).toBe(404);
    expect(errorMessage(after)).toContain('anthropic/claude-sonnet-4.5 was retired on anthropic on 2026-11-30; still served by bedrock');
    expect(anthropic.requests).toHaveLength(1);
  });

  it('lists each endpoint’s lifecycle as of the gateway’s clock, the model active while Bedrock serves it', async () => {
    const dayBefore = await listModels();
    // Deprecated on 2026-09-30 (Anthropic's model deprecations page).
    expect(endpointOf(dayBefore, 'anthropic/claude-sonnet-4.5', 'anthropic')).toMatchObject({
      lifecycle: 'deprecated',
      deprecated_at: '2026-09-30T00:00:00Z',
      retires_at: '2026-11-30T00:00:00Z',
    });
    expect(endpointOf(dayBefore, 'anthropic/claude-sonnet-4', 'anthropic')).toMatchObject({
      lifecycle: 'retired',
      deprecated_at: '2026-04-14T00:00:00Z',
      retires_at: '2026-06-15T00:00:00Z',
    });
    expect(endpointOf(dayBefore, 'anthropic/claude-sonnet-4', 'bedrock')).toMatchObject({ lifecycle: 'active', deprecated_at: null, retires_at: null });
    expect(dayBefore.data.find((entry) => entry.id === 'anthropic/claude-sonnet-4')).toMatchObject({ lifecycle: 'active', deprecated_at: null, retires_at: null });

    clock = RETIREMENT_DAY;
    const retired = await listModels();
    expect(endpointOf(retired, 'anthropic/claude-sonnet-4.5', 'anthropic')).toMatchObject({ lifecycle: 'retired', deprecated_at: '2026-09-30T00:00:00Z', retires_at: '2026-11-30T00:00:00Z' });
    // The Anthropic SDK reads the same through `models.retrieve`.
    const sonnet = await anthropicClient(gateway).models.retrieve('claude-sonnet-4-5');
    expect(sonnet).toMatchObject({ id: 'anthropic/claude-sonnet-4.5', lifecycle: 'active', line: 'sonnet' });
  });
});
