/**
 * Sticky sessions with fallback models over HTTP: a session that a fallback model served once (the primary
 * failed or refused) still asks the primary model first on its next request; the pin chooses the provider of
 * a model, never which model comes first. Model `test/main` runs on Alpha, `test/backup` on Beta and Gamma.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, metadataOf, modelYaml, postMessage, resetFakes, WITH_METADATA } from './routing-support.ts';

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
        modelYaml('test/main', [{ provider: 'alpha', model: 'up-main-alpha', price: [1, 2] }]),
        // Beta is 50,000 times cheaper: without a pin the spread tries it first (the other order ~1e-8).
        modelYaml('test/backup', [
          { provider: 'beta', model: 'up-backup-beta', price: [0.001, 0.001] },
          { provider: 'gamma', model: 'up-backup-gamma', price: [50, 50] },
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

function body(session: string): Record<string, unknown> {
  return messageBody('test/main', { session_id: session, fallbacks: [{ model: 'test/backup' }] });
}

describe('a session served once by a fallback model', () => {
  it('asks the primary model first again on its next request', async () => {
    const session = randomUUID();
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const first = await postMessage(gateway, body(session), WITH_METADATA);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.model).toBe('test/backup');

    resetFakes(alpha, beta, gamma);
    alpha.enqueue(reply.fixture('anthropic-text'));
    const next = await postMessage(gateway, body(session), WITH_METADATA);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.model).toBe('test/main');
    expect(metadataOf(next).attempts.map((attempt) => `${attempt.model}@${attempt.provider}`)).toEqual(['test/main@Alpha Cloud']);
    expect(beta.requests).toHaveLength(0);
  });

  it('keeps the fallback model on its pinned provider when the primary fails again', async () => {
    const session = randomUUID();
    // Pinned to Gamma: Alpha and then Beta fail once.
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.error(529));
    gamma.enqueue(reply.fixture('anthropic-text'));
    const first = await postMessage(gateway, body(session), WITH_METADATA);
    expect(first.body.provider, JSON.stringify(first.body)).toBe('Gamma Cloud');

    resetFakes(alpha, beta, gamma);
    alpha.enqueue(reply.error(529));
    gamma.enqueue(reply.fixture('anthropic-text'));
    const next = await postMessage(gateway, body(session), WITH_METADATA);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(metadataOf(next).attempts.map((attempt) => `${attempt.model}@${attempt.provider}:${attempt.status}`)).toEqual([
      'test/main@Alpha Cloud:overloaded',
      'test/backup@Gamma Cloud:success',
    ]);
    expect(metadataOf(next).strategy).toBe('sticky');
  });
});
