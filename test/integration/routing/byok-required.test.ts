/**
 * BYOK credentials over HTTP: the caller's key goes before the gateway's, and `is_required` keeps the gateway's
 * shared key of that provider out of play, even after the caller's key failed and for models outside the
 * credential's `allowed_models`. What the fake upstream received (`x-api-key`) shows whose key was spent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import {
  anthropicProviderYaml,
  apiKeyOf,
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

const BYOK_KEY = 'sk-alpha-customer-key-7f3a';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;
const created: string[] = [];

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [
        modelYaml('test/primary', [
          { provider: 'alpha', model: 'up-primary-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-primary-beta', price: [1, 2] },
        ]),
        modelYaml('test/alpha-only', [{ provider: 'alpha', model: 'up-only-alpha', price: [1, 2] }]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => resetFakes(alpha, beta));
afterEach(async () => {
  for (const id of created.splice(0)) await deleteCredential(gateway, id);
});

async function alphaCredential(fields: Record<string, unknown>): Promise<string> {
  const id = await createCredential(gateway, { provider: 'alpha', key: BYOK_KEY, ...fields });
  created.push(id);
  return id;
}

// A fresh session per request: no sticky pin from an earlier test reorders the attempts.
function body(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return messageBody(model, { session_id: randomUUID(), ...extra });
}

describe('the caller key comes first', () => {
  it('without is_required, a failing BYOK key falls back to the same provider on the gateway key', async () => {
    await alphaCredential({});
    alpha.enqueue(reply.error(529), reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body('test/alpha-only'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.requests.map(apiKeyOf)).toEqual([BYOK_KEY, SHARED_KEYS.alpha]);
    const metadata = metadataOf(call);
    expect(metadata.attempts.map(({ is_byok, status }) => [is_byok, status])).toEqual([
      [true, 'overloaded'],
      [false, 'success'],
    ]);
    expect(metadata.is_byok).toBe(false);
  });

  it('a working BYOK key answers and the usage says the caller paid', async () => {
    await alphaCredential({ is_required: true });
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body('test/primary'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.requests.map(apiKeyOf)).toEqual([BYOK_KEY]);
    expect(beta.requests).toHaveLength(0);
    expect(call.body.usage).toMatchObject({ is_byok: true });
    expect(metadataOf(call).is_byok).toBe(true);
  });
});

describe('is_required', () => {
  it('after the caller key fails, the shared key of that provider is skipped and another provider answers', async () => {
    await alphaCredential({ is_required: true });
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body('test/primary'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Beta Cloud');
    expect(alpha.requests.map(apiKeyOf)).toEqual([BYOK_KEY]);
    expect(beta.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.beta]);
    expect(metadataOf(call).attempts.map(({ provider, is_byok, status }) => [provider, is_byok, status])).toEqual([
      ['Alpha Cloud', true, 'overloaded'],
      ['Beta Cloud', false, 'success'],
    ]);
  });

  it('when no other provider serves the model, the request fails with the caller key error, never on the gateway key', async () => {
    await alphaCredential({ is_required: true });
    alpha.enqueue(reply.error(529));
    const call = await postMessage(gateway, body('test/alpha-only'));

    expect(call.status).toBe(529);
    expect(errorMessage(call)).toBe('Every attempt failed: test/alpha-only on Alpha Cloud: overloaded (529)');
    expect(alpha.requests.map(apiKeyOf)).toEqual([BYOK_KEY]);
  });

  it('removes the shared key even for models outside allowed_models: that provider is skipped', async () => {
    await alphaCredential({ is_required: true, allowed_models: ['test/some-other-model'] });
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body('test/primary'), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.requests).toHaveLength(0);
    expect(metadataOf(call).endpoints.available).toEqual([{ model: 'test/primary', provider: 'Beta Cloud', selected: true }]);
  });

  it('a model only that provider serves, outside allowed_models, is refused with the reason', async () => {
    await alphaCredential({ is_required: true, allowed_models: ['test/some-other-model'] });
    const call = await postMessage(gateway, body('test/alpha-only'));

    expect(call.status).toBe(404);
    expect(errorMessage(call)).toContain('is_required removes shared endpoints of alpha and no key applies');
    expect(alpha.requests).toHaveLength(0);
  });

  it('a disabled is_required credential has no effect: the shared key serves', async () => {
    await alphaCredential({ is_required: true, disabled: true });
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body('test/alpha-only'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });
});
