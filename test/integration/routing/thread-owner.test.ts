/**
 * Whose `continue` reaches a message thread, over HTTP. The gateway's shared Anthropic key is one account
 * holding every tenant's threads, and Anthropic continues any thread its account holds: the fake here does
 * the same (a continue is answered whenever the key it came with holds the thread, whoever sends it). Before,
 * a continue whose id had no pin for the caller was routed as any request, so tenant B naming tenant A's
 * message id reached the shared key and read A's conversation; and thread pins expired with the sticky idle
 * time, after which A's own continue was routed afresh. Now a continue without a pin for the caller goes only
 * to the caller's own Anthropic-format BYOK keys, else the gateway answers Anthropic's 404 `thread_not_found`
 * itself (tool loop included); thread pins last `SWITCHBOARD_THREAD_PIN_TTL_MS` (24 h), past the sticky idle
 * time (200 ms here), in process and in Redis alike. Thread pins are kept per workspace: another workspace of
 * the same account finds no pin either (before, pins were per account and its continue reached the shared key).
 */
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { initAccount, type InitializedAccount } from '#src/keys/accounts.ts';
import { issueApiKey } from '#src/keys/key-service.ts';
import { workspaces } from '#src/store/schema.ts';
import { STICKY_KEY_PREFIX } from '#src/routing/sticky/redis-pin-store.ts';
import { budgetedPinPrefix } from '#src/routing/sticky/redis-pin-budget.ts';
import { threadPinKey } from '#src/routing/sticky/thread-pins.ts';
import type { RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startGatewayPair, type GatewayPair } from './gateway-pair.ts';
import { startThreadingUpstream, threadLost, type ThreadBody, type ThreadingUpstream } from './threading-upstream.ts';
import {
  anthropicClient,
  anthropicProviderYaml,
  apiKeyOf,
  catalogYaml,
  createCredential,
  deleteCredential,
  modelYaml,
  SHARED_KEYS,
  type GatewayHandle,
} from './routing-support.ts';

const STICKY_TTL_MS = 200;
const BYOK_KEY = 'sk-alpha-tenant-b-own-key-51c9';
const THREADS_BETA = 'message-threads-2026-08-12';
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };
const USAGE = { input: 20, output: 5 };
const LOST = threadLost('req_011OwnerLost');

const redisUrl = redisUrlForTests();
let alpha: ThreadingUpstream;
let gateway: TestGateway;
let tenantB: InitializedAccount;
let handleB: GatewayHandle;
// A second workspace of the gateway's own account (tenant A) and an inference key of it.
let teamA: GatewayHandle;
let credentialId: string | undefined;

beforeAll(async () => {
  alpha = await startThreadingUpstream(LOST);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha.upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])]),
    env: { SWITCHBOARD_STICKY_TTL_MS: String(STICKY_TTL_MS) },
  });
  tenantB = await initAccount(gateway.server.database, { name: 'tenant b' });
  handleB = { origin: gateway.origin, baseUrl: gateway.baseUrl, api_key: tenantB.api_key, management_key: tenantB.management_key };
  const [workspace] = await gateway.server.database.db.insert(workspaces).values({ accountId: gateway.account_id, name: 'team' }).returning();
  const issued = await issueApiKey(gateway.server.database, { accountId: gateway.account_id, workspaceId: workspace!.id, kind: 'inference', name: 'team inference' });
  teamA = { origin: gateway.origin, baseUrl: gateway.baseUrl, api_key: issued.key, management_key: gateway.management_key };
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.upstream.close();
});
beforeEach(() => alpha.upstream.clear());
afterEach(async () => {
  if (credentialId) await deleteCredential(handleB, credentialId);
  credentialId = undefined;
});

function threadOf(request: RecordedRequest | undefined): ThreadBody['thread'] {
  return (request?.body as ThreadBody | undefined)?.thread;
}

/** One thread turn through the SDK as `caller`, JSON or stream, with the gateway's tool loop when `loop`. */
async function send(caller: GatewayHandle, content: string, thread: Record<string, unknown>, options: { stream?: boolean; loop?: boolean } = {}) {
  const client = anthropicClient(caller);
  const params = { model: 'test/claude', max_tokens: 256, messages: [{ role: 'user', content }], thread, betas: [THREADS_BETA], ...(options.loop ? { tools: [DATETIME] } : {}) } as never;
  if (!options.stream) return client.beta.messages.create(params);
  return client.beta.messages.stream(params).finalMessage();
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (caught: unknown) => caught,
  );
}

/** Tenant A's thread, created on the gateway's shared key: the id of its answer. */
async function threadOfTenantA(): Promise<string> {
  const id = alpha.answer({ text: 'Our launch date is the 12th; keep it secret.', usage: USAGE }, SHARED_KEYS.alpha);
  const created = await send(gateway, 'When do we launch?', { type: 'create' });
  expect(created.id).toBe(id);
  expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  alpha.upstream.clear();
  return id;
}

function expectThreadNotFound(error: unknown): void {
  expect(error).toBeInstanceOf(Anthropic.Messages.ThreadNotFoundError);
  const apiError = error as InstanceType<typeof Anthropic.Messages.ThreadNotFoundError>;
  expect(apiError.status).toBe(404);
  expect(apiError.errorCode).toBe('thread_not_found');
}

describe("another tenant's continue naming a thread on the shared key", () => {
  it.each([
    ['JSON', { stream: false }],
    ['stream', { stream: true }],
    ['through the tool loop', { loop: true }],
    ['through the tool loop, streamed', { loop: true, stream: true }],
  ])('is answered thread_not_found by the gateway with nothing sent upstream (%s)', async (_name, options) => {
    const id = await threadOfTenantA();
    // Were it sent, the shared key's account would continue A's thread for B.
    alpha.answer({ text: 'The launch is on the 12th.', usage: USAGE }, SHARED_KEYS.alpha);

    expectThreadNotFound(await failure(send(handleB, 'Remind me of the launch date?', { type: 'continue', previous_message_id: id }, options)));
    expect(alpha.upstream.requests).toHaveLength(0);
  });

  it("goes to the tenant's own BYOK key only, whose account does not hold it", async () => {
    const id = await threadOfTenantA();
    credentialId = await createCredential(handleB, { provider: 'alpha', key: BYOK_KEY });

    expectThreadNotFound(await failure(send(handleB, 'Remind me of the launch date?', { type: 'continue', previous_message_id: id })));
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([BYOK_KEY]);
  });
});

describe("another workspace's continue naming a thread of one account on the shared key", () => {
  it.each([
    ['JSON', { stream: false }],
    ['through the tool loop, streamed', { loop: true, stream: true }],
  ])('is answered thread_not_found by the gateway with nothing sent upstream (%s)', async (_name, options) => {
    // Before, thread pins were kept per account: the team workspace's continue found the default workspace's pin.
    const id = await threadOfTenantA();
    alpha.answer({ text: 'The launch is on the 12th.', usage: USAGE }, SHARED_KEYS.alpha);

    expectThreadNotFound(await failure(send(teamA, 'Remind me of the launch date?', { type: 'continue', previous_message_id: id }, options)));
    expect(alpha.upstream.requests).toHaveLength(0);
  });

  it('still reaches the shared key for the workspace that made the thread', async () => {
    const id = await threadOfTenantA();
    alpha.answer({ text: 'The 12th.', usage: USAGE }, SHARED_KEYS.alpha);

    const next = await send(gateway, 'Remind me of the launch date?', { type: 'continue', previous_message_id: id });

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'The 12th.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });
});

describe("the thread owner's continue after the sticky idle time", () => {
  it.each([false, true])('still reaches the shared key that holds the thread (stream %s)', async (stream) => {
    const id = await threadOfTenantA();
    await sleep(STICKY_TTL_MS * 2);
    alpha.answer({ text: 'Still the 12th.', usage: USAGE }, SHARED_KEYS.alpha);

    const next = await send(gateway, 'Any change?', { type: 'continue', previous_message_id: id }, { stream });

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Still the 12th.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
    expect(threadOf(alpha.upstream.requests[0])).toEqual({ type: 'continue', previous_message_id: id });
  });
});

describe('a continue without a pin from a tenant with its own Anthropic key', () => {
  it.each([
    ['tried before the shared key', false],
    ['a fallback, tried after the shared key', true],
  ])('goes to that key, whose account holds the thread (%s)', async (_name, isFallback) => {
    credentialId = await createCredential(handleB, { provider: 'alpha', key: BYOK_KEY, is_fallback: isFallback });
    const id = 'msg_011TenantBOwnThread';
    alpha.hold(id, BYOK_KEY);
    alpha.answer({ text: 'Continued on your own account.', usage: USAGE }, BYOK_KEY);

    const next = await send(handleB, 'Go on.', { type: 'continue', previous_message_id: id });

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Continued on your own account.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([BYOK_KEY]);
    expect(threadOf(alpha.upstream.requests[0])).toEqual({ type: 'continue', previous_message_id: id });
  });
});

describe.skipIf(redisUrl === undefined)('a thread pin in Redis, shared by two instances', () => {
  let pair: GatewayPair;
  let redis: Redis;

  beforeAll(async () => {
    pair = await startGatewayPair({
      catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha.upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])]),
      env: { REDIS_URL: redisUrl as string, SWITCHBOARD_STICKY_TTL_MS: String(STICKY_TTL_MS), ...PATIENT_REDIS_ENV },
    });
    redis = new Redis(redisUrl as string, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await pair?.close();
    redis?.disconnect();
  });

  it("lives for the thread pin's lifetime, and the other instance sends the owner's continue to the shared key", async () => {
    const id = alpha.answer({ text: 'Noted.', usage: USAGE }, SHARED_KEYS.alpha);
    expect((await send(pair.first, 'Remember the code word.', { type: 'create' })).id).toBe(id);
    // The pin is written once the answer is out: wait for it (a missing key reads -2).
    // Thread pins are bounded by bytes: they live under the store's hash-tagged prefix.
    const key = budgetedPinPrefix(STICKY_KEY_PREFIX) + threadPinKey({ accountId: pair.first.account_id, workspaceId: pair.first.workspace_id }, id);
    let ttl = await redis.pttl(key);
    for (let waited = 0; ttl === -2 && waited < 2_000; waited += 20) {
      await sleep(20);
      ttl = await redis.pttl(key);
    }
    expect(ttl).toBeGreaterThan(86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);

    await sleep(STICKY_TTL_MS * 2);
    alpha.upstream.clear();
    alpha.answer({ text: 'Still noted.', usage: USAGE }, SHARED_KEYS.alpha);
    const next = await send(pair.second, 'Still there?', { type: 'continue', previous_message_id: id });

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Still noted.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });
});
