/**
 * Bedrock answers 424 `ModelErrorException` when the model failed while processing the request: the vendor's
 * failure, not the request's, so the next provider of the model is tried, as after a 5xx; before, it was taken
 * for a request error and answered 400 without trying another provider.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, resetFakes } from './routing-support.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const BEDROCK_FIRST = { provider: { order: ['bedrock', 'alpha'] } };
let bedrock: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [bedrock, alpha] = await Promise.all([startFakeBedrock(), startFakeAnthropic()]);
  const bedrockYaml = bedrockProviderYaml(bedrock, 'AKIAMODELERRORTEST01', 'model/error/secret/0001');
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [bedrockYaml, anthropicProviderYaml('alpha', alpha)],
      [
        modelYaml('test/claude', [
          { provider: 'bedrock', model: '"us.anthropic.claude-sonnet-4-5-20250929-v1:0"', price: [1, 2] },
          { provider: 'alpha', model: 'up-claude-alpha', price: [1, 2] },
        ]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([bedrock?.close(), alpha?.close()]);
});

beforeEach(() => resetFakes(bedrock, alpha));

const REQUEST = { model: 'test/claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...BEDROCK_FIRST } as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe("Bedrock's ModelErrorException (424)", () => {
  it('moves on to the next provider, which serves the request', async () => {
    bedrock.enqueue(reply.error(424));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const message = await anthropicClient(gateway).messages.create(REQUEST);

    expect(message.stop_reason).toBe('end_turn');
    expect(bedrock.requests).toHaveLength(1);
    expect(alpha.requests).toHaveLength(1);
  });

  it('from every provider is a server failure (502 api_error), not the request\'s fault', async () => {
    bedrock.enqueue(reply.error(424));
    alpha.enqueue(reply.error(500));
    const error = await anthropicClient(gateway).messages.create(REQUEST).then(
      () => undefined,
      (caught: unknown) => caught as InstanceType<typeof Anthropic.APIError>,
    );

    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error?.status).toBe(502);
    expect(error?.type).toBe('api_error');
    expect(error?.apiMessage).toMatch(/on Amazon Bedrock: server error \(424\)/);
  });
});
