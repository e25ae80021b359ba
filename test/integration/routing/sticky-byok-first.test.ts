/**
 * BYOK first, over HTTP: a BYOK credential is used from the first request after it is created or enabled, even
 * in a conversation that a sticky pin holds on the gateway's shared key. A conversation named only by its
 * content follows the caller's keys; an explicit session keeps its provider and moves to the caller's key for
 * it. A pinned credential that is disabled or deleted is never tried again. The key each fake upstream
 * received (`x-api-key`) shows who paid. Test model `test/sticky` runs on Alpha (50,000 times cheaper, so the
 * price-weighted spread tries it first) and Beta.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import {
  anthropicProviderYaml,
  apiKeyOf,
  catalogYaml,
  createCredential,
  deleteCredential,
  metadataOf,
  modelYaml,
  patchCredential,
  postMessage,
  resetFakes,
  SHARED_KEYS,
  WITH_METADATA,
} from './routing-support.ts';

const ALPHA_KEY = 'sk-alpha-customer-key-5e1b';
const BETA_KEY = 'sk-beta-customer-key-9c2d';

/** One conversation: the same system text and opening message, growing by one turn per request. */
function conversation(extra: Record<string, unknown> = {}) {
  const opening = `Plan a trip ${randomUUID()}`;
  let turns = 0;
  return () => {
    const messages: { role: string; content: string }[] = [{ role: 'user', content: opening }];
    for (let turn = 0; turn < turns; turn += 1) messages.push({ role: 'assistant', content: `Answer ${turn}` }, { role: 'user', content: `Follow-up ${turn}` });
    turns += 1;
    return { model: 'test/sticky', max_tokens: 64, system: 'You are a travel agent.', messages, ...extra };
  };
}

describe.each(testDrivers())('BYOK first with sticky sessions on %s', (driver) => {
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let gateway: TestGateway;
  const created: string[] = [];

  beforeAll(async () => {
    [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
    gateway = await startTestGateway({
      driver,
      catalogYaml: catalogYaml(
        [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
        [
          modelYaml('test/sticky', [
            { provider: 'alpha', model: 'up-sticky-alpha', price: [0.001, 0.001] },
            { provider: 'beta', model: 'up-sticky-beta', price: [50, 50] },
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
  afterEach(async () => {
    for (const id of created.splice(0)) await deleteCredential(gateway, id);
  });

  const credential = async (provider: 'alpha' | 'beta', fields: Record<string, unknown> = {}) => {
    const id = await createCredential(gateway, { provider, key: provider === 'alpha' ? ALPHA_KEY : BETA_KEY, ...fields });
    created.push(id);
    return id;
  };

  /** Sends the next turn and returns who answered, with which key, and how the plan was ordered. */
  const send = async (next: () => Record<string, unknown>, headers: Record<string, string> = {}) => {
    const call = await postMessage(gateway, next(), { ...WITH_METADATA, ...headers });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const keys = [...alpha.requests, ...beta.requests].map(apiKeyOf);
    resetFakes(alpha, beta);
    return { provider: call.body.provider, keys, strategy: metadataOf(call).strategy, isByok: metadataOf(call).is_byok };
  };

  /** The first turn of a conversation, served by Beta on the shared key: Alpha fails once. */
  const startOnBeta = async (next: () => Record<string, unknown>, headers: Record<string, string> = {}) => {
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    expect(await send(next, headers)).toMatchObject({ provider: 'Beta Cloud', keys: [SHARED_KEYS.alpha, SHARED_KEYS.beta], isByok: false });
  };

  describe('a conversation without a session id (pinned by its content)', () => {
    it('on the shared key, moves to a credential created for another provider', async () => {
      const next = conversation();
      await startOnBeta(next);
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next)).toMatchObject({ provider: 'Beta Cloud', keys: [SHARED_KEYS.beta], strategy: 'sticky' });

      await credential('alpha');
      alpha.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next)).toEqual({ provider: 'Alpha Cloud', keys: [ALPHA_KEY], strategy: 'price-weighted', isByok: true });
    });

    it('on the shared key, moves to a credential created for the pinned provider', async () => {
      const next = conversation();
      await startOnBeta(next);
      await credential('beta');
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next)).toEqual({ provider: 'Beta Cloud', keys: [BETA_KEY], strategy: 'sticky', isByok: true });
    });

    it('moves to a disabled credential as soon as it is enabled', async () => {
      const id = await credential('alpha', { disabled: true });
      const next = conversation();
      await startOnBeta(next);
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next)).toMatchObject({ provider: 'Beta Cloud', keys: [SHARED_KEYS.beta] });

      await patchCredential(gateway, id, { disabled: false });
      alpha.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next)).toMatchObject({ provider: 'Alpha Cloud', keys: [ALPHA_KEY], isByok: true });
    });
  });

  describe.each([
    ['the body’s session_id', () => ({ session_id: randomUUID() }), () => ({})],
    ['x-session-id', () => ({}), () => ({ 'x-session-id': randomUUID() })],
    ['Claude Code’s x-claude-code-session-id', () => ({}), () => ({ 'x-claude-code-session-id': randomUUID() })],
  ])('an explicit session (%s)', (_name, bodyFields, sessionHeaders) => {
    it('keeps its provider and moves to the caller’s key for it, though a cheaper provider has a key too', async () => {
      const headers = sessionHeaders();
      const next = conversation(bodyFields());
      await startOnBeta(next, headers);
      await credential('alpha');
      await credential('beta');
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next, headers)).toEqual({ provider: 'Beta Cloud', keys: [BETA_KEY], strategy: 'sticky', isByok: true });
    });

    it('with a key only for another provider, stays on its provider', async () => {
      const headers = sessionHeaders();
      const next = conversation(bodyFields());
      await startOnBeta(next, headers);
      await credential('alpha');
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next, headers)).toMatchObject({ provider: 'Beta Cloud', keys: [SHARED_KEYS.beta], strategy: 'sticky' });
    });

    it('moves to the key for its provider as soon as it is enabled', async () => {
      const id = await credential('beta', { disabled: true });
      const headers = sessionHeaders();
      const next = conversation(bodyFields());
      await startOnBeta(next, headers);
      await patchCredential(gateway, id, { disabled: false });
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next, headers)).toEqual({ provider: 'Beta Cloud', keys: [BETA_KEY], strategy: 'sticky', isByok: true });
    });
  });

  describe('a conversation pinned to a credential', () => {
    const removals: [string, (id: string) => Promise<void>][] = [
      ['disabled', (id) => patchCredential(gateway, id, { disabled: true })],
      [
        'deleted',
        async (id) => {
          await deleteCredential(gateway, id);
          created.splice(created.indexOf(id), 1);
        },
      ],
    ];
    it.each(removals.flatMap(([name, remove]) => [
      [`${name}, in a session`, remove, { 'x-session-id': randomUUID() }] as const,
      [`${name}, in a conversation named by its content`, remove, {}] as const,
    ]))('never tries it again once %s: its provider answers on the shared key', async (_name, remove, headers) => {
      const id = await credential('beta');
      const next = conversation();
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next, headers)).toEqual({ provider: 'Beta Cloud', keys: [BETA_KEY], strategy: 'price-weighted', isByok: true });

      await remove(id);
      beta.enqueue(reply.fixture('anthropic-text'));
      expect(await send(next, headers)).toEqual({ provider: 'Beta Cloud', keys: [SHARED_KEYS.beta], strategy: 'sticky', isByok: false });
    });
  });
});
