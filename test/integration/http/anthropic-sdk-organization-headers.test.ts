/**
 * The Anthropic SDK's `workspace_id` and `user_profile_id` params (sent as `anthropic-workspace-id` and
 * `anthropic-user-profile-id`) name places in the caller's own Anthropic organization. The real SDK against
 * the gateway and a fake Anthropic upstream: a call with the caller's BYOK key carries them (message, stream
 * and count_tokens), a call with the gateway's own key does not (also the gateway-key attempt a failed BYOK
 * attempt falls back to), and a translated vendor never gets them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, apiKeyOf, catalogYaml, createCredential, deleteCredential, modelYaml, postMessage, SHARED_KEYS } from '#test/integration/routing/routing-support.ts';

const BYOK_KEY = 'sk-ant-caller-organization-key-0001';
const WORKSPACE = 'wrkspc_011CZkZaBF1tNoB5wlCeusgy';
const USER_PROFILE = 'uprof_011CZkZaBF1tNoB5wlCeusgy';
const ORGANIZATION = { workspace_id: WORKSPACE, user_profile_id: USER_PROFILE };

let alpha: FakeUpstream;
let openai: FakeUpstream;
let gateway: TestGateway;
const created: string[] = [];

beforeAll(async () => {
  alpha = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  openai = await startFakeOpenAiChat();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), `  oai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-oai-organization-0001" }`],
      [modelYaml('test/claude', [{ provider: 'alpha', model: 'claude-up', price: [1, 2] }]), modelYaml('test/gpt', [{ provider: 'oai', model: 'gpt-4.1-mini', price: [1, 2] }])],
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
  await openai?.close();
});
beforeEach(() => {
  alpha.clear();
  openai.clear();
});
afterEach(async () => {
  for (const id of created.splice(0)) await deleteCredential(gateway, id);
});

async function credential(provider: string, key: string): Promise<void> {
  created.push(await createCredential(gateway, { provider, key }));
}

// A fresh session per request: no sticky pin from an earlier test reorders the attempts.
const request = (model = 'test/claude') => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello' }], session_id: randomUUID() });

function organizationHeadersOf(sent: RecordedRequest): Record<string, unknown> {
  return { workspace: sent.headers['anthropic-workspace-id'], userProfile: sent.headers['anthropic-user-profile-id'] };
}
const FORWARDED = { workspace: WORKSPACE, userProfile: USER_PROFILE };
const NOT_FORWARDED = { workspace: undefined, userProfile: undefined };

describe("the SDK's workspace_id and user_profile_id", () => {
  it("reach an Anthropic upstream called with the caller's BYOK key", async () => {
    await credential('alpha', BYOK_KEY);
    const message = await anthropicClient(gateway).messages.create({ ...request(), ...ORGANIZATION });
    expect(message.content[0]?.type).toBe('text');
    expect(apiKeyOf(alpha.lastRequest())).toBe(BYOK_KEY);
    expect(organizationHeadersOf(alpha.lastRequest())).toEqual(FORWARDED);
  });

  it('reach it on a beta stream and a count_tokens call with the BYOK key too', async () => {
    await credential('alpha', BYOK_KEY);
    const client = anthropicClient(gateway);
    await client.beta.messages.stream({ ...request(), ...ORGANIZATION, betas: ['context-management-2025-06-27'] }).finalMessage();
    expect(organizationHeadersOf(alpha.lastRequest())).toEqual(FORWARDED);
    const { session_id: _session, ...countable } = request();
    const counted = await client.messages.countTokens({ ...countable, ...ORGANIZATION });
    expect(counted.input_tokens).toBe(12);
    expect(alpha.lastRequest().path).toBe('/v1/messages/count_tokens');
    expect(apiKeyOf(alpha.lastRequest())).toBe(BYOK_KEY);
    expect(organizationHeadersOf(alpha.lastRequest())).toEqual(FORWARDED);
  });

  it("do not reach it with the gateway's own key", async () => {
    await anthropicClient(gateway).messages.create({ ...request(), ...ORGANIZATION });
    expect(apiKeyOf(alpha.lastRequest())).toBe(SHARED_KEYS.alpha);
    expect(organizationHeadersOf(alpha.lastRequest())).toEqual(NOT_FORWARDED);
  });

  it("go with the BYOK attempt only, not with the gateway's key it falls back to", async () => {
    await credential('alpha', BYOK_KEY);
    alpha.enqueue(reply.error(529), reply.fixture('anthropic-text'));
    await anthropicClient(gateway).messages.create({ ...request(), ...ORGANIZATION });
    expect(alpha.requests.map((sent) => [apiKeyOf(sent), organizationHeadersOf(sent)])).toEqual([
      [BYOK_KEY, FORWARDED],
      [SHARED_KEYS.alpha, NOT_FORWARDED],
    ]);
  });

  it('are left out when sent empty, and the request is served', async () => {
    await credential('alpha', BYOK_KEY);
    const call = await postMessage(gateway, request(), { 'anthropic-workspace-id': '', 'anthropic-user-profile-id': '  ' });
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(organizationHeadersOf(alpha.lastRequest())).toEqual(NOT_FORWARDED);
  });

  it("never reach a translated vendor, even on the caller's BYOK key", async () => {
    await credential('oai', 'sk-oai-caller-organization-0001');
    openai.enqueue(openAiChatStep({ text: 'Hi.', usage: { input: 5, output: 2 } }));
    const message = await anthropicClient(gateway).messages.create({ ...request('test/gpt'), ...ORGANIZATION });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hi.' })]);
    expect(openai.lastRequest().headers.authorization).toBe('Bearer sk-oai-caller-organization-0001');
    expect(organizationHeadersOf(openai.lastRequest())).toEqual(NOT_FORWARDED);
  });
});
