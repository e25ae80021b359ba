/**
 * The official Anthropic SDK against the real gateway (and an Anthropic-format fake upstream), configured
 * the ways users configure it: `apiKey`, `authToken`, and the key in `x-api-key` as Claude Code's bundled
 * SDK and the Python SDK send `ANTHROPIC_API_KEY`. For a message, a stream, an upstream error and a refused
 * key, the SDK's `request_id` is filled in and equals the gateway's `X-Generation-Id`. The SDK's header
 * params reach an Anthropic-format upstream as documented: `betas` as `anthropic-beta`, while `workspace_id` and
 * `user_profile_id`, which name places in the caller's own Anthropic organization, are not forwarded with the
 * gateway's own key (with the caller's BYOK key they are: anthropic-sdk-organization-headers.test.ts).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const SHARED_KEY = 'sk-ant-shared-sdk-clients-0001';
const REQUEST: MessageCreateParamsNonStreaming = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const GENERATION_ID = /^gen_[A-Za-z0-9_-]{24}$/;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "${SHARED_KEY}" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

type Configuration = 'apiKey' | 'authToken' | 'x-api-key header';

/** The SDK as a user configures it; `key` defaults to the gateway's inference key. */
function client(configuration: Configuration, key = gateway.api_key): Anthropic {
  const common = { baseURL: `${gateway.origin}/api`, maxRetries: 0, timeout: 10_000 };
  switch (configuration) {
    case 'apiKey':
      return new Anthropic({ ...common, apiKey: key, authToken: null });
    case 'authToken':
      return new Anthropic({ ...common, authToken: key, apiKey: null });
    case 'x-api-key header':
      return new Anthropic({ ...common, apiKey: null, authToken: null, defaultHeaders: { 'X-Api-Key': key } });
    default: {
      const unreachable: never = configuration;
      throw new Error(`unknown configuration ${String(unreachable)}`);
    }
  }
}

describe.each<Configuration>(['apiKey', 'authToken', 'x-api-key header'])('the Anthropic SDK with %s', (configuration) => {
  it('creates a message whose _request_id is the generation id', async () => {
    // One request: the promise and its withResponse() share the same response.
    const created = client(configuration).messages.create(REQUEST);
    const message = await created;
    const { response, request_id } = await created.withResponse();
    expect(message.content[0]?.type).toBe('text');
    const generationId = response.headers.get('x-generation-id');
    expect(generationId).toMatch(GENERATION_ID);
    expect(request_id).toBe(generationId);
    expect(message._request_id).toBe(generationId);
  });

  it('streams a message whose request_id is the generation id', async () => {
    const stream = client(configuration).messages.stream(REQUEST);
    const { response, request_id } = await stream.withResponse();
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    const generationId = response.headers.get('x-generation-id');
    expect(generationId).toMatch(GENERATION_ID);
    expect(request_id).toBe(generationId);
    expect(stream.request_id).toBe(generationId);
  });

  it("raises an upstream error whose requestID is the gateway's generation id, not the vendor's", async () => {
    upstream.enqueue(reply.error(400, { message: 'prompt is too long: 250000 tokens > 200000 maximum' }));
    const error = await client(configuration).messages.create(REQUEST).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.message).toContain('prompt is too long');
    const generationId = apiError.headers?.get('x-generation-id');
    expect(generationId).toMatch(GENERATION_ID);
    expect(apiError.requestID).toBe(generationId);
    expect((apiError.error as { request_id?: string }).request_id).toBe(generationId);
  });

  it('raises a refused key as AuthenticationError carrying a request id', async () => {
    const error = await client(configuration, 'sk-ant-api03-not-a-gateway-key-0000000000').messages.create(REQUEST).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    const apiError = error as InstanceType<typeof Anthropic.AuthenticationError>;
    expect((apiError.error as { error?: { message?: string } }).error?.message).toBe('Invalid API key');
    expect(apiError.requestID).toMatch(GENERATION_ID);
    expect(apiError.requestID).toBe(apiError.headers?.get('x-generation-id'));
  });

  it('counts tokens, with a request id', async () => {
    const counting = client(configuration).messages.countTokens({ model: REQUEST.model, messages: REQUEST.messages });
    const counted = await counting;
    const { response } = await counting.withResponse();
    expect(counted.input_tokens).toBe(12);
    expect(counted._request_id).toMatch(GENERATION_ID);
    expect(counted._request_id).toBe(response.headers.get('x-generation-id'));
  });
});

describe('the Anthropic SDK on a request the gateway rejects before routing', () => {
  it('carries the request id on a 400 for an invalid body', async () => {
    const error = await client('authToken')
      .messages.create({ ...REQUEST, max_tokens: 'many' } as unknown as MessageCreateParamsNonStreaming)
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.requestID).toMatch(GENERATION_ID);
    expect(apiError.requestID).toBe(apiError.headers?.get('x-generation-id'));
  });
});

describe("the SDK's header params", () => {
  it("betas reach the upstream; on the gateway's key, workspace_id and user_profile_id do not, and the request is served", async () => {
    const message = await client('apiKey').beta.messages.create({ ...REQUEST, betas: ['context-management-2025-06-27'], workspace_id: 'wrkspc_01Caller', user_profile_id: 'uprof_01Caller' });
    expect(message.content[0]?.type).toBe('text');
    const sent = upstream.lastRequest();
    expect(String(sent.headers['anthropic-beta']).split(',')).toContain('context-management-2025-06-27');
    expect(sent.headers['anthropic-workspace-id']).toBeUndefined();
    expect(sent.headers['anthropic-user-profile-id']).toBeUndefined();
    expect(sent.headers['x-api-key']).toBe(SHARED_KEY);
  });
});
