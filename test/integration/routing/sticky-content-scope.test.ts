/**
 * Whose conversations share a sticky pin, over HTTP. Without a session id a conversation is pinned by how it
 * opens (system text and first user message), and a ready-made system prompt with a stock first message opens
 * many conversations alike. Two callers send the same opening: the first is pinned to Beta (Alpha fails once),
 * and the second goes to Alpha, the cheaper provider, unless it shares the first's pin. Callers of other
 * accounts or other workspaces of one account, and other end users (`user`, `metadata.user_id`), never share
 * it; two API keys of one workspace do (one tenant, one prompt cache). Test model `test/sticky` runs on Alpha
 * (50,000 times cheaper, so the price-weighted spread tries it first) and Beta. Before, the pin was keyed by
 * account alone: another workspace or another end user with the same opening was sent to Beta.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { initAccount } from '#src/keys/accounts.ts';
import { issueApiKey } from '#src/keys/key-service.ts';
import { workspaces } from '#src/store/schema.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, metadataOf, modelYaml, postMessage, resetFakes, WITH_METADATA, type GatewayHandle } from './routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;
/** Inference keys of other callers: another workspace of the account, another key of the same workspace, another account. */
const keys = { otherWorkspace: '', sameWorkspace: '', otherAccount: '' };

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
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
  const database = gateway.server.database;
  const [team] = await database.db.insert(workspaces).values({ accountId: gateway.account_id, name: 'team' }).returning();
  keys.otherWorkspace = (await issueApiKey(database, { accountId: gateway.account_id, workspaceId: team!.id, kind: 'inference', name: 'team inference' })).key;
  keys.sameWorkspace = (await issueApiKey(database, { accountId: gateway.account_id, workspaceId: gateway.workspace_id, kind: 'inference', name: 'second inference' })).key;
  keys.otherAccount = (await initAccount(database, { name: 'other tenant' })).api_key;
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => resetFakes(alpha, beta));

/** A conversation's opening, unique to the test: the same system prompt and first message for both callers. */
function opening(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return messageBody('test/sticky', { system: 'You are the support assistant of Example Shop.', messages: [{ role: 'user', content: `Hello ${randomUUID()}` }], ...extra });
}

/** Sends one request as `caller` and returns who served it and how the plan was ordered. */
async function send(caller: GatewayHandle, body: Record<string, unknown>) {
  const call = await postMessage(caller, body, WITH_METADATA);
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  return { provider: call.body.provider, strategy: metadataOf(call).strategy };
}

/** The first caller's conversation, pinned to Beta: Alpha fails once. */
async function pinToBeta(body: Record<string, unknown>): Promise<void> {
  alpha.enqueue(reply.error(529));
  beta.enqueue(reply.fixture('anthropic-text'));
  expect(await send(gateway, body)).toEqual({ provider: 'Beta Cloud', strategy: 'price-weighted' });
  resetFakes(alpha, beta);
}

const asKey = (key: string): GatewayHandle => ({ ...gateway, api_key: key });

describe('a second caller with the same opening and no session id', () => {
  it.each<[string, () => GatewayHandle, Record<string, unknown>, Record<string, unknown>]>([
    ['another workspace of the account', () => asKey(keys.otherWorkspace), {}, {}],
    ['another account', () => asKey(keys.otherAccount), {}, {}],
    ['another end user (`user`), same key', () => gateway, { user: 'customer-1' }, { user: 'customer-2' }],
    ['another end user (`metadata.user_id`), same key', () => gateway, { metadata: { user_id: 'customer-1' } }, { metadata: { user_id: 'customer-2' } }],
    ['an end user (`user`) where the first named none', () => gateway, {}, { user: 'customer-2' }],
  ])('does not share the pin: %s', async (_name, second, firstFields, secondFields) => {
    const body = opening();
    await pinToBeta({ ...body, ...firstFields });
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(second(), { ...body, ...secondFields })).toEqual({ provider: 'Alpha Cloud', strategy: 'price-weighted' });
    expect(beta.requests).toHaveLength(0);
  });

  it.each<[string, () => GatewayHandle, Record<string, unknown>]>([
    ['another API key of the same workspace', () => asKey(keys.sameWorkspace), {}],
    ['the same end user, from another key of the workspace', () => asKey(keys.sameWorkspace), { user: 'customer-1', metadata: { user_id: 'customer-1' } }],
  ])('shares the pin: %s', async (_name, second, fields) => {
    const body = opening(fields);
    await pinToBeta(body);
    beta.enqueue(reply.fixture('anthropic-text'));
    expect(await send(second(), body)).toEqual({ provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);
  });

  it('named sessions are scoped alike: one session id in two workspaces is two sessions', async () => {
    const session = { session_id: randomUUID() };
    await pinToBeta(opening(session));
    alpha.enqueue(reply.fixture('anthropic-text'));
    expect(await send(asKey(keys.otherWorkspace), opening(session))).toEqual({ provider: 'Alpha Cloud', strategy: 'price-weighted' });
  });
});
