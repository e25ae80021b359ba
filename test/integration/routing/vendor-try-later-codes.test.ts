/**
 * Vendors' try-later failures sent under a status that reads otherwise, over HTTP with the vendors' fakes:
 * Bedrock's `ServiceQuotaExceededException` comes as a 400 (AWS: "You can resubmit your request later") and is
 * a rate limit; Groq's flex tier at capacity comes as a 498 `capacity_exceeded` and is an overload. Both move
 * on to the next provider; before, each was read as the request's fault, answered 400 and nothing else tried.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, resetFakes } from './routing-support.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

let bedrock: FakeUpstream;
let groq: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [bedrock, groq, alpha] = await Promise.all([startFakeBedrock(), startFakeOpenAiChat(), startFakeAnthropic()]);
  const bedrockYaml = bedrockProviderYaml(bedrock, 'AKIAQUOTAEXCEEDED001', 'quota/exceeded/secret/0001');
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [bedrockYaml, `  groq: { base_url: "${groq.baseURL}", api_key: "gsk-groq-capacity-0001" }`, anthropicProviderYaml('alpha', alpha)],
      [
        modelYaml('test/claude', [
          { provider: 'bedrock', model: '"us.anthropic.claude-sonnet-4-5-20250929-v1:0"', price: [1, 2] },
          { provider: 'alpha', model: 'up-claude-alpha', price: [1, 2] },
        ]),
        modelYaml('test/qwen', [
          { provider: 'groq', model: 'qwen/qwen3-32b', price: [1, 2] },
          { provider: 'alpha', model: 'up-qwen-alpha', price: [1, 2] },
        ]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([bedrock?.close(), groq?.close(), alpha?.close()]);
});

beforeEach(() => resetFakes(bedrock, groq, alpha));

function request(model: string, first: string): Anthropic.MessageCreateParamsNonStreaming {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], provider: { order: [first, 'alpha'] } } as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

async function failure(params: Anthropic.MessageCreateParamsNonStreaming): Promise<InstanceType<typeof Anthropic.APIError> | undefined> {
  return anthropicClient(gateway).messages.create(params).then(
    () => undefined,
    (caught: unknown) => caught as InstanceType<typeof Anthropic.APIError>,
  );
}

describe("Bedrock's ServiceQuotaExceededException (400)", () => {
  it('moves on to the next provider, which serves the request', async () => {
    bedrock.enqueue(reply.error(400, { code: 'ServiceQuotaExceededException' }));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const message = await anthropicClient(gateway).messages.create(request('test/claude', 'bedrock'));

    expect(message.stop_reason).toBe('end_turn');
    expect(bedrock.requests).toHaveLength(1);
    expect(alpha.requests).toHaveLength(1);
  });

  it('with every provider rate limited is a 429 rate_limit_error', async () => {
    bedrock.enqueue(reply.error(400, { code: 'ServiceQuotaExceededException' }));
    alpha.enqueue(reply.error(429));
    const error = await failure(request('test/claude', 'bedrock'));

    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error?.type).toBe('rate_limit_error');
  });

  it('leaves a ValidationException (400) the request’s fault: no other provider is tried', async () => {
    bedrock.enqueue(reply.error(400));
    const error = await failure(request('test/claude', 'bedrock'));

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(alpha.requests).toHaveLength(0);
  });
});

describe("Groq's flex tier at capacity (498 capacity_exceeded)", () => {
  it('moves on to the next provider, which serves the request', async () => {
    groq.enqueue(reply.error(498));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const message = await anthropicClient(gateway).messages.create(request('test/qwen', 'groq'));

    expect(message.stop_reason).toBe('end_turn');
    expect(groq.requests).toHaveLength(1);
    expect(alpha.requests).toHaveLength(1);
  });

  it('with every provider overloaded is a 529 overloaded_error', async () => {
    groq.enqueue(reply.error(498));
    alpha.enqueue(reply.error(529));
    const error = await failure(request('test/qwen', 'groq'));

    expect(error?.status).toBe(529);
    expect(error?.type).toBe('overloaded_error');
  });
});
