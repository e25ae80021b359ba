/**
 * The auto-router over HTTP: `model: switchboard/auto` picks a model within the plugin's bounds
 * (`allowed_models`, `excluded_models`, `cost_tier`), the chosen model is what the upstream is asked for and
 * what the response names, and bounds that leave nothing say so. The catalog's view of each model comes from
 * `GET /models`, as a user would check it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import {
  anthropicProviderYaml,
  catalogYaml,
  errorMessage,
  messageBody,
  metadataOf,
  postMessage,
  resetFakes,
  upstreamModelOf,
  WITH_METADATA,
} from './routing-support.ts';
import { CANDIDATES_YAML, startAnsweringAlpha } from './auto-router-support.ts';

interface ListedModel {
  id: string;
  endpoints: { provider: string; model: string; pricing: { input: number; output: number } }[];
}

let anthropic: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
let models: Map<string, ListedModel>;

beforeAll(async () => {
  [anthropic, alpha] = await Promise.all([startAnsweringAlpha(), startAnsweringAlpha()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([`  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-shared-auto-0001" }`, anthropicProviderYaml('alpha', alpha)], CANDIDATES_YAML),
  });
  const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  expect(response.status).toBe(200);
  models = new Map(((await response.json()) as { data: ListedModel[] }).data.map((model) => [model.id, model]));
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), alpha?.close()]);
});

beforeEach(() => resetFakes(anthropic, alpha));

function autoBody(plugin: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return messageBody('switchboard/auto', { plugins: [{ id: 'auto-router', ...plugin }], ...extra });
}

/** The one request the fakes received, and which fake got it. */
function onlyUpstreamRequest(): { upstream: 'anthropic' | 'alpha'; model: unknown } {
  const received = [...anthropic.requests.map((request) => ({ upstream: 'anthropic' as const, request })), ...alpha.requests.map((request) => ({ upstream: 'alpha' as const, request }))];
  expect(received).toHaveLength(1);
  const [first] = received;
  return { upstream: first?.upstream ?? 'alpha', model: first ? upstreamModelOf(first.request) : undefined };
}

describe('switchboard/auto', () => {
  it('allowed_models anthropic/* picks an Anthropic model, which the upstream is asked for and the response names', async () => {
    const call = await postMessage(gateway, autoBody({ allowed_models: ['anthropic/*'] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const chosen = String(call.body.model);
    expect(chosen).toMatch(/^anthropic\//);
    const sent = onlyUpstreamRequest();
    expect(sent.upstream).toBe('anthropic');
    expect(models.get(chosen)?.endpoints.find((endpoint) => endpoint.provider === 'anthropic')?.model).toBe(sent.model);

    const metadata = metadataOf(call);
    expect(metadata.requested).toBe('switchboard/auto');
    expect(metadata.strategy).toMatch(/^auto-router:/);
    expect(metadata.endpoints.available.every((endpoint) => endpoint.model === chosen)).toBe(true);
  });

  it('cost_tier economy picks a model whose blended price is under $2 per million tokens', async () => {
    const call = await postMessage(gateway, autoBody({ cost_tier: 'economy' }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const chosen = models.get(String(call.body.model));
    expect(chosen, String(call.body.model)).toBeDefined();
    const cheapest = Math.min(...(chosen?.endpoints ?? []).map(({ pricing }) => (pricing.input + pricing.output) / 2));
    expect(cheapest).toBeLessThan(2);
    onlyUpstreamRequest();
  });

  it('cost_tier premium never picks an economy model', async () => {
    const call = await postMessage(gateway, autoBody({ cost_tier: 'premium', allowed_models: ['test/*', 'anthropic/*'] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const chosen = models.get(String(call.body.model));
    const cheapest = Math.min(...(chosen?.endpoints ?? []).map(({ pricing }) => (pricing.input + pricing.output) / 2));
    expect(cheapest).toBeGreaterThan(20);
  });

  it('excluded_models removes candidates: the only one left is chosen', async () => {
    const call = await postMessage(gateway, autoBody({ allowed_models: ['test/*'], excluded_models: ['test/cheap'] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/pricey');
    expect(onlyUpstreamRequest()).toEqual({ upstream: 'alpha', model: 'up-pricey' });
  });

  it('the plugin with enabled: true auto-routes a request for a concrete model too', async () => {
    const call = await postMessage(gateway, messageBody('test/pricey', { plugins: [{ id: 'auto-router', enabled: true, allowed_models: ['test/cheap'] }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/cheap');
  });

  it('chooses among the models the request\'s provider preferences leave, not one its plan then cannot serve', async () => {
    // The trivial prompt would pick the cheapest model, test/cheap, which only Alpha serves.
    const onlyAnthropic = await postMessage(gateway, autoBody({}, { provider: { only: ['anthropic'] } }));
    expect(onlyAnthropic.status, JSON.stringify(onlyAnthropic.body)).toBe(200);
    expect(String(onlyAnthropic.body.model)).toMatch(/^anthropic\//);
    expect(onlyUpstreamRequest().upstream).toBe('anthropic');

    resetFakes(anthropic, alpha);
    const ignoreAlpha = await postMessage(gateway, autoBody({}, { provider: { ignore: ['Alpha Cloud'] } }));
    expect(ignoreAlpha.status, JSON.stringify(ignoreAlpha.body)).toBe(200);
    expect(onlyUpstreamRequest().upstream).toBe('anthropic');

    resetFakes(anthropic, alpha);
    const underCeiling = await postMessage(gateway, autoBody({ allowed_models: ['test/*'] }, { provider: { max_price: { completion: 0.5 } } }));
    expect(underCeiling.status).toBe(400);
    expect(errorMessage(underCeiling)).toBe(
      'Invalid request parameters: auto-router: no candidate model can be served under the request\'s provider preferences',
    );
    expect([...anthropic.requests, ...alpha.requests]).toHaveLength(0);
  });

  it('an excluded_models pattern that could match nothing is a 400 naming it, not a bound silently ignored', async () => {
    const call = await postMessage(gateway, autoBody({ allowed_models: ['test/*'], excluded_models: ['test/che*'] }));

    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect(errorMessage(call)).toMatch(/^Invalid request parameters: plugins\[0\]\.excluded_models\[0\] must match pattern/);
    expect([...anthropic.requests, ...alpha.requests]).toHaveLength(0);
  });

  it('bounds that leave no model answer a 400 naming the bound', async () => {
    const call = await postMessage(gateway, autoBody({ allowed_models: ['nobody/*'] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: auto-router: no candidate model matches allowed_models nobody/*');
    expect([...anthropic.requests, ...alpha.requests]).toHaveLength(0);
  });

  it('a request needing a context no allowed model has is refused, not sent', async () => {
    const long = 'word '.repeat(300_000);
    const call = await postMessage(gateway, autoBody({ allowed_models: ['test/*'] }, { messages: [{ role: 'user', content: long }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toMatch(/auto-router: no candidate model supports a context of ~\d+ tokens$/);
  });
});
