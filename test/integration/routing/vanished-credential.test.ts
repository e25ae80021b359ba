/**
 * A BYOK credential deleted after the plan chose it but before its attempt ran is an attempt failure like any
 * other, over HTTP: the plan moves on to the next attempt (recorded as `credential_unavailable`), and only when
 * nothing is left does the client get an error, a 503 saying what was tried, never a 500. Alpha's fake holds
 * the first attempt's reply while the test deletes the credential through the management API.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
  type MessageCall,
} from './routing-support.ts';

const BETA_CUSTOMER_KEY = 'sk-beta-customer-key-77aa';
const ALPHA_FIRST = { provider: { order: ['alpha', 'beta'] } };

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

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
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => resetFakes(alpha, beta));

/**
 * Posts a request whose first attempt (Alpha) is held by its fake; once Alpha has it, deletes the credential,
 * then lets Alpha answer 529 so the plan moves on to the deleted credential's attempt.
 */
async function deleteWhileAlphaWaits(credentialId: string): Promise<MessageCall> {
  let release = (): void => undefined;
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  alpha.enqueue(reply.error(529, { until }));
  const call = postMessage(gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);
  await expect.poll(() => alpha.requests.length).toBe(1);
  await deleteCredential(gateway, credentialId);
  release();
  return call;
}

describe('a BYOK credential deleted while its request is under way', () => {
  it('is skipped: the next attempt (the shared key) answers, and the metadata says why', async () => {
    const id = await createCredential(gateway, { provider: 'beta', key: BETA_CUSTOMER_KEY });
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await deleteWhileAlphaWaits(id);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ provider: 'Beta Cloud', usage: { is_byok: false } });
    expect(beta.requests).toHaveLength(1);
    expect(apiKeyOf(beta.lastRequest())).toBe(SHARED_KEYS.beta);
    expect(metadataOf(call).attempts.map(({ provider, status, is_byok, http_status }) => [provider, status, is_byok, http_status])).toEqual([
      ['Alpha Cloud', 'overloaded', false, 529],
      ['Beta Cloud', 'credential_unavailable', true, null],
      ['Beta Cloud', 'success', false, 200],
    ]);
  });

  it('answers 503 naming every attempt when it was the last one left', async () => {
    // is_byok_only: Beta runs only on the caller's key, so nothing is left after it.
    const id = await createCredential(gateway, { provider: 'beta', key: BETA_CUSTOMER_KEY, is_byok_only: true });
    const call = await deleteWhileAlphaWaits(id);

    expect(call.status).toBe(503);
    expect(call.body).toMatchObject({ type: 'error', error: { type: 'overloaded_error', code: 503 } });
    expect(errorMessage(call)).toBe('Every attempt failed: test/primary on Alpha Cloud: overloaded (529); test/primary on Beta Cloud: credential unavailable');
    expect(beta.requests).toHaveLength(0);
  });
});
