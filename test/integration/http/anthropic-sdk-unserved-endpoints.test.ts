/**
 * Endpoints of Anthropic's API the gateway does not serve, called through the official Anthropic SDK with its
 * default settings: each answers at once a 404 in Anthropic's error shape (`not_found_error`), which the SDK
 * raises as `NotFoundError` with its `type`, and which it does not retry. Before, the paths outside `/messages`
 * (files, skills, user profiles, a base URL without `/api`) answered the management body `{error: {code,
 * message}}`, in which the SDK finds no error type.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-unserved-0001" }\n` });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

type NotFound = InstanceType<typeof Anthropic.NotFoundError>;

async function rejection(call: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(call).then(
    () => null,
    (caught: unknown) => caught,
  );
}

function expectAnthropicNotFound(error: unknown): void {
  expect(error).toBeInstanceOf(Anthropic.NotFoundError);
  const apiError = error as NotFound;
  expect(apiError.status).toBe(404);
  expect(apiError.type).toBe('not_found_error');
  expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'not_found_error', code: 404, message: expect.stringMatching(/^Not found: [A-Z]+ \/\S+ is not a path of this API$/) } });
}

describe('an Anthropic endpoint the gateway does not serve', () => {
  it.each<[string, (sdk: Anthropic) => PromiseLike<unknown>]>([
    ['messages.batches.list', (sdk) => sdk.messages.batches.list()],
    ['messages.batches.create', (sdk) => sdk.messages.batches.create({ requests: [{ custom_id: 'a', params: { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] } }] })],
    ['beta.files.list', (sdk) => sdk.beta.files.list()],
    ['beta.files.upload', (sdk) => sdk.beta.files.upload({ file: new File(['hello'], 'hello.txt', { type: 'text/plain' }) })],
    ['beta.files.delete', (sdk) => sdk.beta.files.delete('file_011')],
    ['beta.skills.list', (sdk) => sdk.beta.skills.list()],
  ])('%s raises NotFoundError with not_found_error', async (_name, call) => {
    const before = upstream.requests.length;
    expectAnthropicNotFound(await rejection(call(client)));
    expect(upstream.requests).toHaveLength(before);
  });

  it('a base URL without /api answers the same for a message', async () => {
    const misconfigured = new Anthropic({ baseURL: gateway.origin, apiKey: gateway.api_key });
    expectAnthropicNotFound(await rejection(misconfigured.messages.create({ model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })));
  });
});
