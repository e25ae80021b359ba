/**
 * Requests nobody can serve, over HTTP: an unknown model is a 404 naming it, and a preference that filters out
 * every endpoint is a 4xx naming the preference, never a 500, and no upstream is called. A hard filter that
 * leaves some endpoints routes only to those.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, messageBody, modelYaml, postMessage, resetFakes } from './routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        // Alpha declares that it keeps nothing; Beta declares nothing, so it counts as collecting data.
        anthropicProviderYaml('alpha', alpha, 'data_policy: { zdr: true, data_collection: deny }'),
        anthropicProviderYaml('beta', beta),
      ],
      [
        modelYaml('test/primary', [
          { provider: 'alpha', model: 'up-primary-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-primary-beta', price: [1, 2] },
        ]),
        modelYaml('test/collecting', [{ provider: 'beta', model: 'up-collecting-beta', price: [1, 2] }]),
        [
          '  test/plain:',
          '    name: test/plain',
          '    context_length: 8000',
          '    endpoints:',
          '      - { provider: beta, model: up-plain-beta, pricing: { input: 1, output: 2 } }',
        ].join('\n'),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => resetFakes(alpha, beta));

const TOOL = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

describe('unknown models', () => {
  it('an unknown model is a 404 naming it', async () => {
    const call = await postMessage(gateway, messageBody('test/nope'));

    expect(call.status).toBe(404);
    expect(call.body.error).toMatchObject({ type: 'not_found_error', code: 404 });
    expect(errorMessage(call)).toBe('Model not found: test/nope');
  });

  it('an unknown fallback model is a 404 naming it, before anything is sent', async () => {
    const call = await postMessage(gateway, messageBody('test/primary', { fallbacks: [{ model: 'test/missing-fallback' }] }));

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toBe('Model not found: test/missing-fallback');
    expect([...alpha.requests, ...beta.requests]).toHaveLength(0);
  });
});

describe('every endpoint filtered out', () => {
  it.each<[string, string, Record<string, unknown>, string]>([
    ['provider.only naming nobody', 'test/primary', { provider: { only: ['nonexistent'] } }, 'provider.only excludes every endpoint of test/primary'],
    ['provider.ignore naming every provider', 'test/primary', { provider: { ignore: ['alpha', 'Beta Cloud'] } }, 'provider.ignore excludes every endpoint of test/primary'],
    ['data_collection: deny on a collecting provider', 'test/collecting', { provider: { data_collection: 'deny' } }, 'no endpoint of test/collecting allows data_collection=deny'],
    ['zdr: true on a provider that retains data', 'test/collecting', { provider: { zdr: true } }, 'no endpoint of test/collecting offers zero data retention (zdr=true)'],
    ['max_price below every price', 'test/primary', { provider: { max_price: { prompt: 0.5 } } }, 'no endpoint of test/primary is within provider.max_price (prompt $0.5/M)'],
    [
      'require_parameters with tools no endpoint supports',
      'test/plain',
      { provider: { require_parameters: true }, tools: [TOOL] },
      'no endpoint of test/plain supports every parameter the request uses (tools)',
    ],
  ])('%s: a 404 naming the preference, no upstream called', async (_label, model, extra, reason) => {
    const call = await postMessage(gateway, messageBody(model, extra));

    expect(call.status, JSON.stringify(call.body)).toBe(404);
    expect(call.body.error).toMatchObject({ type: 'not_found_error', code: 404 });
    expect(errorMessage(call)).toBe(`No endpoint can serve this request: ${reason}`);
    expect([...alpha.requests, ...beta.requests]).toHaveLength(0);
  });

  it('names the reason of every requested model when none can be served', async () => {
    const call = await postMessage(gateway, messageBody('test/collecting', { provider: { data_collection: 'deny' }, fallbacks: [{ model: 'test/plain' }] }));

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toContain('test/collecting allows data_collection=deny');
    expect(errorMessage(call)).toContain('test/plain allows data_collection=deny');
  });
});

describe('a hard filter that leaves some endpoints', () => {
  it('data_collection: deny routes only to the provider that does not collect', async () => {
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { provider: { data_collection: 'deny' } }));

    expect(call.status).toBe(529);
    expect(alpha.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(0);
  });

  it('a filtered fallback model is skipped and the primary still serves', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { provider: { zdr: true }, fallbacks: [{ model: 'test/collecting' }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Alpha Cloud');
  });
});

describe('gateway server tools', () => {
  it('one this gateway is not configured for is a 400 naming it, and nothing is sent upstream', async () => {
    const call = await postMessage(gateway, { ...messageBody('test/primary'), tools: [TOOL, { type: 'gateway:web_search' }] });

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400, details: { error_code: 'invalid_request_parameters', parameters: [{ path: '/body/tools/1/type' }] } });
    expect(errorMessage(call)).toBe(
      'Invalid request parameters: tools[1].type: gateway:web_search is not available: this gateway has no search backend configured (server_tools.web_search)',
    );
    expect(alpha.requests.length + beta.requests.length).toBe(0);
  });
});
