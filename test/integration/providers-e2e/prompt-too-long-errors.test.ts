/**
 * A translated vendor refusing the prompt's length says so in its own words; through the gateway the client
 * reads Anthropic's first (`prompt is too long: N tokens > M maximum`), as from Anthropic itself, because
 * Claude Code looks for them to offer compacting. Driven with the official SDK against fake OpenAI, Gemini and
 * Bedrock upstreams answering in their real error shapes.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, modelYaml } from '#test/integration/providers-e2e/e2e-target.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const PRICING = '{ input: 1, output: 2 }';
let openai: FakeUpstream;
let gemini: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [openai, gemini, bedrock] = await Promise.all([startFakeOpenAiChat(), startFakeGemini(), startFakeBedrock()]);
  const catalogYaml = [
    'providers:',
    `  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-length-0001", family: openai-chat }`,
    `  google: { base_url: "${gemini.baseURL}", api_key: "AIzaSy-length-0001" }`,
    bedrockProviderYaml(bedrock, 'AKIALENGTHTEST000001', 'length/secret/key/0001'),
    'models:',
    modelYaml({ slug: 'e2e/gpt', provider: 'openai', upstreamModel: 'gpt-4.1-nano', pricing: PRICING }),
    modelYaml({ slug: 'e2e/gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash', pricing: PRICING }),
    modelYaml({ slug: 'e2e/nova', provider: 'bedrock', upstreamModel: 'amazon.nova-lite-v1:0', pricing: PRICING }),
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), gemini?.close(), bedrock?.close()]);
});

const upstreams = (): Record<string, FakeUpstream> => ({ 'e2e/gpt': openai, 'e2e/gemini': gemini, 'e2e/nova': bedrock });

describe('a vendor refusing the prompt length', () => {
  it.each([
    [
      'e2e/gpt',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens. Please reduce the length of the messages.",
      /^Invalid request parameters: prompt is too long: 250000 tokens > 128000 maximum; .*maximum context length is 128000 tokens/,
    ],
    [
      'e2e/gemini',
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      /^Invalid request parameters: prompt is too long: 1200000 tokens > 1048576 maximum; .*The input token count/,
    ],
    ['e2e/nova', 'Input is too long for requested model.', /^Invalid request parameters: prompt is too long; .*Input is too long for requested model\./],
  ])('%s: a 400 invalid_request_error in Anthropic words, then the vendor line', async (model, vendorMessage, expected) => {
    const upstream = upstreams()[model] as FakeUpstream;
    upstream.clear();
    upstream.enqueue(reply.error(400, { message: vendorMessage }));
    const error = await anthropicClient(gateway)
      .messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.apiMessage).toMatch(expected);
    expect(upstream.requests).toHaveLength(1);
  });

  it('leaves another invalid request in the vendor words alone', async () => {
    openai.clear();
    openai.enqueue(reply.error(400, { message: "Invalid value for 'temperature'." }));
    const error = await anthropicClient(gateway)
      .messages.create({ model: 'e2e/gpt', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] })
      .then(
        () => undefined,
        (caught: unknown) => caught as InstanceType<typeof Anthropic.BadRequestError>,
      );

    expect(error?.apiMessage).toMatch(/^Invalid request parameters: openai rejected the request: Invalid value for 'temperature'\.$/);
  });
});
