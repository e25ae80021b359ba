/**
 * Failover over HTTP: the same model on two providers (the first fails, the second answers), fallback models
 * (`fallbacks` and `models`) after a failure or a refusal, a request error that must not fail over, and
 * `provider.allow_fallbacks: false` stopping after the preferred providers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import {
  ALPHA_FIRST,
  anthropicProviderYaml,
  apiKeyOf,
  catalogYaml,
  errorMessage,
  messageBody,
  metadataOf,
  modelYaml,
  postMessage,
  resetFakes,
  SHARED_KEYS,
  upstreamModelOf,
  WITH_METADATA,
} from './routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gamma: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta, gamma] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta), anthropicProviderYaml('gamma', gamma)],
      [
        modelYaml('test/primary', [
          { provider: 'alpha', model: 'up-primary-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-primary-beta', price: [1, 2] },
        ]),
        modelYaml('test/secondary', [{ provider: 'gamma', model: 'up-secondary-gamma', price: [1, 2] }]),
        modelYaml('test/tertiary', [{ provider: 'beta', model: 'up-tertiary-beta', price: [1, 2] }]),
        // Alpha is 50,000 times cheaper: the price-weighted spread tries it first (odds of the other order ~1e-8).
        modelYaml('test/cheap-first', [
          { provider: 'alpha', model: 'up-cheap-alpha', price: [0.001, 0.001] },
          { provider: 'beta', model: 'up-cheap-beta', price: [50, 50] },
        ]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close(), gamma?.close()]);
});

beforeEach(() => resetFakes(alpha, beta, gamma));


describe('fallback across providers of one model', () => {
  const failures: [string, FakeReply, string][] = [
    ['529 overloaded', reply.error(529), 'overloaded'],
    ['500 server error', reply.error(500), 'server_error'],
    ['429 rate limited', reply.error(429), 'rate_limited'],
    ['a connection reset', reply.reset(), 'connection'],
  ];

  it.each(failures)('the first provider answers %s, the second answers', async (_label, failure, kind) => {
    alpha.enqueue(failure);
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/primary');
    expect(call.body.provider).toBe('Beta Cloud');
    expect(call.body.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Hello') })]);
    expect(alpha.requests).toHaveLength(1);
    expect(upstreamModelOf(alpha.lastRequest())).toBe('up-primary-alpha');
    expect(beta.requests).toHaveLength(1);
    expect(upstreamModelOf(beta.lastRequest())).toBe('up-primary-beta');
    expect(apiKeyOf(beta.lastRequest())).toBe(SHARED_KEYS.beta);

    const metadata = metadataOf(call);
    expect(metadata.attempt).toBe(2);
    expect(metadata.attempts.map(({ provider, status }) => [provider, status])).toEqual([
      ['Alpha Cloud', kind],
      ['Beta Cloud', 'success'],
    ]);
    expect(metadata.endpoints.available.filter((entry) => entry.selected)).toEqual([{ model: 'test/primary', provider: 'Beta Cloud', selected: true }]);
  });

  it('without preferences the cheaper provider goes first and its failure moves to the other', async () => {
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/cheap-first'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Beta Cloud');
    expect(upstreamModelOf(alpha.lastRequest())).toBe('up-cheap-alpha');
    expect(upstreamModelOf(beta.lastRequest())).toBe('up-cheap-beta');
    expect(metadataOf(call).strategy).toBe('price-weighted');
  });

  it('every provider failing answers one error that lists what was tried', async () => {
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.error(529));
    const call = await postMessage(gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(529);
    expect(call.body.error).toMatchObject({ type: 'overloaded_error', code: 529 });
    expect(errorMessage(call)).toMatch(/test\/primary on Alpha Cloud: overloaded \(529\).*test\/primary on Beta Cloud: overloaded \(529\)/);
    expect(call.headers.get('x-generation-id')).toMatch(/^gen_/);
  });
});

describe('fallback across models', () => {
  it('`fallbacks` takes over when every provider of the primary model fails', async () => {
    alpha.enqueue(reply.error(500));
    beta.enqueue(reply.error(529));
    gamma.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { fallbacks: [{ model: 'test/secondary' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/secondary');
    expect(call.body.provider).toBe('Gamma Cloud');
    expect(upstreamModelOf(gamma.lastRequest())).toBe('up-secondary-gamma');
    const metadata = metadataOf(call);
    expect(metadata.requested).toBe('test/primary');
    expect(metadata.attempts.map(({ model, status }) => [model, status])).toEqual([
      ['test/primary', expect.any(String)],
      ['test/primary', expect.any(String)],
      ['test/secondary', 'success'],
    ]);
  });

  it('`models` lists the models to try after the primary', async () => {
    alpha.enqueue(reply.error(500));
    beta.enqueue(reply.error(500), reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { ...ALPHA_FIRST, models: ['test/tertiary', 'test/secondary'] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/tertiary');
    expect(beta.requests.map(upstreamModelOf)).toEqual(['up-primary-beta', 'up-tertiary-beta']);
    expect(gamma.requests).toHaveLength(0);
  });

  it('a refusal moves to the fallback model, not to another provider of the refusing model', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal'));
    gamma.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { ...ALPHA_FIRST, fallbacks: [{ model: 'test/secondary' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/secondary');
    expect(call.body.stop_reason).toBe('end_turn');
    expect(alpha.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(0);
    expect(gamma.requests).toHaveLength(1);
    expect(metadataOf(call).attempts.map(({ provider, status }) => [provider, status])).toEqual([
      ['Alpha Cloud', 'refusal'],
      ['Gamma Cloud', 'success'],
    ]);
  });

  it('a refusal with no model left to try is returned as the answer', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal'));
    const call = await postMessage(gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('refusal');
    expect(call.body.stop_details).toMatchObject({ type: 'refusal', category: 'cyber' });
    expect(beta.requests).toHaveLength(0);
    expect(metadataOf(call).summary).toContain('refusal');
  });

  it('a refusal whose fallback then fails returns the refusal, naming the attempt that answered', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal'));
    gamma.enqueue(reply.error(500));
    const call = await postMessage(gateway, messageBody('test/primary', { ...ALPHA_FIRST, fallbacks: [{ model: 'test/secondary' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('refusal');
    expect(call.body.model).toBe('test/primary');
    const metadata = metadataOf(call);
    expect(metadata.attempts.map(({ status }) => status)).toEqual(['refusal', 'server_error']);
    expect(metadata.attempt).toBe(1);
    expect(metadata.endpoints.available.find((entry) => entry.selected)).toMatchObject({ model: 'test/primary', provider: 'Alpha Cloud' });
  });
});

describe('no failover', () => {
  it('a 400 from the upstream is returned at once: no other provider or model is tried', async () => {
    alpha.enqueue(reply.error(400, { message: 'max_tokens: too large for this model' }));
    const call = await postMessage(gateway, messageBody('test/primary', { ...ALPHA_FIRST, fallbacks: [{ model: 'test/secondary' }] }));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400 });
    expect(alpha.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(0);
    expect(gamma.requests).toHaveLength(0);
  });

  it('`fallbacks` together with `models` is a 400 before any upstream is called', async () => {
    const call = await postMessage(gateway, messageBody('test/primary', { fallbacks: [{ model: 'test/secondary' }], models: ['test/tertiary'] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toMatch(/fallbacks.*models/);
    expect([...alpha.requests, ...beta.requests, ...gamma.requests]).toHaveLength(0);
  });
});

describe('provider.allow_fallbacks: false', () => {
  it('with `order`, stops after the preferred providers and returns their error', async () => {
    alpha.enqueue(reply.error(529));
    const call = await postMessage(
      gateway,
      messageBody('test/primary', { provider: { order: ['alpha'], allow_fallbacks: false }, fallbacks: [{ model: 'test/secondary' }] }),
    );

    expect(call.status).toBe(529);
    expect(errorMessage(call)).toContain('test/primary on Alpha Cloud: overloaded (529)');
    expect(alpha.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(0);
    expect(gamma.requests).toHaveLength(0);
  });

  it('with `order`, the preferred provider answers when it can', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary', { provider: { order: ['alpha'], allow_fallbacks: false } }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Alpha Cloud');
    expect(metadataOf(call).endpoints.available).toEqual([{ model: 'test/primary', provider: 'Alpha Cloud', selected: true }]);
  });

  it('without `order`, only the first provider chosen is tried', async () => {
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.error(529));
    const call = await postMessage(gateway, messageBody('test/primary', { provider: { allow_fallbacks: false } }));

    expect(call.status).toBe(529);
    expect(alpha.requests.length + beta.requests.length).toBe(1);
  });
});
