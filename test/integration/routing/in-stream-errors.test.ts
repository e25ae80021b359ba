/**
 * A translated vendor's error inside a stream that answered HTTP 200 (OpenAI Chat's and OpenAI-compatible
 * vendors' `{"error": {...}}` data line, OpenAI Responses' `error` event, Gemini's `{"error": {...}}`, Bedrock's
 * exception message), through the real AI SDK provider packages and fakes speaking each wire format, is
 * classified as the HTTP error of the status it stands for, by the rule a JSON error follows: before any output
 * a retryable one (429, 500) moves on to the next endpoint, which answers; a 400 is the vendor's 400 (its words
 * in the message), nothing else tried; OpenAI-compatible's 404 `model_not_found` moves on. Every such attempt
 * records the 200 its upstream answered with and the vendor's failure class. After output, OpenAI's
 * `insufficient_quota` is an exhausted account (`authentication`, an `api_error` event), not a rate limit.
 * Before, an error part's `statusCode` was not read: an OpenAI-compatible vendor's in-stream 404 stopped the run
 * as an invalid request, in-stream 400s lost the vendor's words, and `insufficient_quota` read as a rate limit.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  reply,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeReply,
  type FakeUpstream,
  type ReplyDelivery,
} from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml } from './routing-support.ts';

interface Vendor {
  slug: string;
  start: () => Promise<FakeUpstream>;
  yaml: (upstream: FakeUpstream) => string;
  /** A recorded stream of the vendor with the fault given. */
  failing: (fault: ReplyDelivery) => FakeReply;
  /** After how many of its events the recorded stream has sent text. */
  afterOutput: number;
}

const VENDORS: readonly Vendor[] = [
  { slug: 'openai-chat', start: () => startFakeOpenAiChat(), yaml: (up) => `family: openai-chat, base_url: "${up.baseURL}", api_key: "sk-instream-chat-0001"`, failing: (fault) => reply.fixture('openai-text.chunks.txt', fault), afterOutput: 4 },
  { slug: 'compat', start: () => startFakeOpenAiChat(), yaml: (up) => `family: openai-compatible, base_url: "${up.baseURL}", api_key: "sk-instream-compat-0001"`, failing: (fault) => reply.fixture('openai-text.chunks.txt', fault), afterOutput: 4 },
  { slug: 'responses', start: () => startFakeOpenAiResponses(), yaml: (up) => `family: openai-responses, base_url: "${up.baseURL}", api_key: "sk-instream-responses-0001"`, failing: (fault) => reply.fixture('openai-phase.1.chunks.txt', fault), afterOutput: 6 },
  { slug: 'google', start: () => startFakeGemini(), yaml: (up) => `family: google, base_url: "${up.baseURL}", api_key: "sk-instream-google-0001"`, failing: (fault) => reply.fixture('google-text.chunks.txt', fault), afterOutput: 2 },
  {
    slug: 'bedrock',
    start: () => startFakeBedrock(),
    yaml: (up) => `family: bedrock, base_url: "${up.url}", aws: { region: us-east-1, access_key_id: "AKIAINSTREAMTEST0001", secret_access_key: "instream/secret/access/key/000000000000001" }`,
    failing: (fault) => reply.fixture('amazon-bedrock-text.chunks.txt', fault),
    afterOutput: 4,
  },
];

const upstreams = new Map<string, FakeUpstream>();
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  alpha = await startFakeAnthropic();
  for (const vendor of VENDORS) upstreams.set(vendor.slug, await vendor.start());
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [...VENDORS.map((vendor) => `  up-${vendor.slug}: { ${vendor.yaml(upstreams.get(vendor.slug) as FakeUpstream)}, display_name: "${vendor.slug}" }`), anthropicProviderYaml('alpha', alpha)],
      VENDORS.map((vendor) =>
        modelYaml(`test/${vendor.slug}`, [
          { provider: `up-${vendor.slug}`, model: `up-${vendor.slug}`, price: [1, 2] },
          { provider: 'alpha', model: 'up-claude-alpha', price: [1, 2] },
        ]),
      ),
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
}, 120_000);

beforeEach(() => {
  alpha.clear();
  for (const upstream of upstreams.values()) upstream.clear();
});

afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

const params = (vendor: Vendor) =>
  ({ model: `test/${vendor.slug}`, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello there' }], provider: { order: [`up-${vendor.slug}`, 'alpha'] } }) as unknown as Anthropic.MessageCreateParamsStreaming;

/** Streams with the Anthropic SDK: the event types, the error the call or the stream ended with, the generation id. */
async function streamed(vendor: Vendor): Promise<{ types: string[]; error?: InstanceType<typeof Anthropic.APIError>; id: string }> {
  const types: string[] = [];
  let id = '';
  try {
    const { data, response } = await anthropicClient(gateway).messages.create(params(vendor)).withResponse();
    id = response.headers.get('x-generation-id') ?? '';
    for await (const event of data) types.push(event.type);
    return { types, id };
  } catch (error) {
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    return { types, error: apiError, id: id || (apiError.headers?.get('x-generation-id') ?? '') };
  }
}

const retryable = [
  { status: 429, kind: 'rate_limited' },
  { status: 500, kind: 'server_error' },
];

describe.each(VENDORS)('$slug: an in-stream error before any output', (vendor) => {
  it.each(retryable)('$status moves on to the next endpoint, which answers; the attempt records $kind under the 200', async ({ status, kind }) => {
    upstreams.get(vendor.slug)?.enqueue(vendor.failing({ streamError: { afterEvents: 0, status } }));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const { types, error, id } = await streamed(vendor);
    expect(error).toBeUndefined();
    expect(types.at(-1)).toBe('message_stop');
    expect(alpha.requests).toHaveLength(1);
    const record = await generationOf(gateway, id);
    expect(record.attempts).toMatchObject([
      { status: kind, http_status: 200 },
      { status: 'success', http_status: 200 },
    ]);
  });

  it("400 is the vendor's 400 with its words; no other endpoint is tried", async () => {
    const words = `The ${vendor.slug} vendor refused parameter frobnicate`;
    upstreams.get(vendor.slug)?.enqueue(vendor.failing({ streamError: { afterEvents: 0, status: 400, message: words } }));
    const { error, id } = await streamed(vendor);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error?.error).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect(error?.message).toContain(words);
    expect(alpha.requests).toHaveLength(0);
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 400, error: { type: 'UpstreamError:invalid_request' } });
    expect(record.attempts).toMatchObject([{ status: 'invalid_request', http_status: 200 }]);
  });
});

describe('vendor-specific in-stream errors', () => {
  const compat = VENDORS[1] as Vendor;
  const chat = VENDORS[0] as Vendor;

  it("an OpenAI-compatible vendor's 404 model_not_found before output moves on to the next endpoint", async () => {
    upstreams.get(compat.slug)?.enqueue(compat.failing({ streamError: { afterEvents: 0, status: 404 } }));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const { types, error, id } = await streamed(compat);
    expect(error).toBeUndefined();
    expect(types.at(-1)).toBe('message_stop');
    expect((await generationOf(gateway, id)).attempts).toMatchObject([{ status: 'not_found', http_status: 200 }, { status: 'success' }]);
  });

  it("OpenAI's insufficient_quota after output is an exhausted account (api_error), not a rate limit", async () => {
    const quota = 'You exceeded your current quota, please check your plan and billing details.';
    upstreams.get(chat.slug)?.enqueue(chat.failing({ streamError: { afterEvents: chat.afterOutput, status: 429, code: 'insufficient_quota', message: quota } }));
    const { types, error, id } = await streamed(chat);
    expect(types).toContain('content_block_delta');
    expect(error?.error).toMatchObject({ error: { type: 'api_error' } });
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 200, error: { type: 'UpstreamError:authentication' } });
    expect(record.attempts).toMatchObject([{ status: 'authentication', http_status: 200 }]);
  });
});
