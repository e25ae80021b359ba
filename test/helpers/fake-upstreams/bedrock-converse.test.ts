import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { APICallError } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { collectStreamParts, rejectionOf, finishPart, joinDeltas, partsOfType, userPrompt } from '#test/helpers/language-model-results.ts';

const modelId = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let fake: FakeUpstream;

beforeEach(async () => {
  fake = await startFakeBedrock();
});
afterEach(() => fake.close());

/** SigV4 signing runs locally over the fake's URL; any well-formed key pair works. */
function signedModel() {
  const bedrock = createAmazonBedrock({
    baseURL: fake.baseURL,
    region: 'us-east-1',
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  });
  return bedrock(modelId);
}

describe('fake Bedrock Converse API', () => {
  it('answers /converse with the recorded body to a SigV4-signed request', async () => {
    fake.enqueue(reply.fixture('amazon-bedrock-text'));
    const result = await signedModel().doGenerate({ prompt: userPrompt('How many r?') });

    const recorded = readFixture<{ output: { message: { content: { text: string }[] } } }>('amazon-bedrock', 'amazon-bedrock-text');
    expect(result.content).toMatchObject([{ type: 'text', text: recorded.output.message.content[0]?.text }]);
    expect(result.usage.inputTokens.total).toBe(22);
    const received = fake.lastRequest();
    expect(received).toMatchObject({ operation: 'converse', params: { modelId }, streaming: false });
    expect(received.path).toBe(`/model/${encodeURIComponent(modelId)}/converse`);
    expect(received.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\//);
  });

  it('streams binary event-stream messages that the AI SDK decodes, across arbitrary byte splits', async () => {
    fake.enqueue(reply.fixture('amazon-bedrock-reasoning', { split: { seed: 9, maxChunkBytes: 50 } }));
    const parts = await collectStreamParts(await signedModel().doStream({ prompt: userPrompt('How many r?') }));

    expect(joinDeltas(parts, 'reasoning-delta')).toBe(
      'Let me count the r\'s in "strawberry":\n\ns-t-r-a-w-b-e-r-r-y\n\nr appears at positions 3, 8, and 9.\n\nSo there are 3 r\'s.',
    );
    expect(joinDeltas(parts, 'text-delta')).toBe('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y');
    // The signature arrives as an empty reasoning delta carrying provider metadata.
    const signed = partsOfType(parts, 'reasoning-delta').filter((part) => part.providerMetadata?.bedrock?.signature);
    expect(signed).toHaveLength(1);
    expect(finishPart(parts).usage).toMatchObject({ inputTokens: { total: 51 }, outputTokens: { total: 94 } });
    expect(fake.lastRequest()).toMatchObject({ operation: 'converse-stream', streaming: true });
  });

  it('streams a tool call with metadata before messageStop, authorised by a Bedrock API key', async () => {
    fake.enqueue(reply.fixture('amazon-bedrock-tool-call.1'));
    const model = createAmazonBedrock({ baseURL: fake.baseURL, region: 'us-east-1', apiKey: 'bedrock-api-key' })(modelId);
    const parts = await collectStreamParts(await model.doStream({ prompt: userPrompt('Name a holiday') }));

    expect(partsOfType(parts, 'tool-call')).toEqual([
      expect.objectContaining({ toolCallId: 'tool-use-id', toolName: 'test-tool', input: '{"value":"Sparkle Day"}' }),
    ]);
    expect(finishPart(parts).finishReason.unified).toBe('tool-calls');
    expect(fake.lastRequest().headers.authorization).toBe('Bearer bedrock-api-key');
  });

  it('answers an error status with x-amzn-ErrorType and a message body', async () => {
    fake.enqueue(reply.error(429));
    const error = await rejectionOf(signedModel().doGenerate({ prompt: userPrompt('Hi') }));

    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((error as APICallError).responseHeaders?.['x-amzn-errortype']).toMatch(/^ThrottlingException:/);
    expect((error as APICallError).responseBody).toBe('{"message":"Too many requests, please wait before trying again."}');
  });

  it('sends an exception message mid-stream, which arrives as an error part', async () => {
    fake.enqueue(reply.fixture('amazon-bedrock-text', { streamError: { afterEvents: 3, status: 503 } }));
    const parts = await collectStreamParts(await signedModel().doStream({ prompt: userPrompt('Hi') }));

    expect(joinDeltas(parts, 'text-delta')).toBe('Let me count the "');
    expect(partsOfType(parts, 'error')).toHaveLength(1);
    expect(finishPart(parts).finishReason.unified).toBe('error');
  });
});
