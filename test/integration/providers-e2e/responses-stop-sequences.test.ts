/**
 * `stop_sequences` on OpenAI's Responses API, end to end through the gateway with the official Anthropic SDK.
 * The Responses API has no stop sequences (the AI SDK drops them with a warning), so the model would write
 * past the client's stop and the answer would change: the gateway answers a 400 naming the field, as it does
 * for everything a translated vendor cannot express, and sends nothing upstream.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { rejectionOf } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gpt-responses-stop';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiResponses,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-openai-e2e-stop-0001" }`,
  model: { slug: MODEL, provider: 'openai', upstreamModel: 'gpt-5-mini', pricing: '{ input: 0.25, output: 2 }' },
});

const request = { model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Count to ten, one number a line.' }] };

describe('stop_sequences on OpenAI Responses', () => {
  it('is a 400 naming the field, with nothing sent upstream', async () => {
    e2e.upstream.clear();
    const error = await rejectionOf(e2e.client.messages.create({ ...request, stop_sequences: ['5'] }));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error?: { type?: string; message?: string } };
    expect(body.error?.type).toBe('invalid_request_error');
    expect(body.error?.message).toContain('stop_sequences');
    expect(e2e.upstream.requests).toHaveLength(0);
  });

  it('with require_parameters, the endpoint is not offered: a 404 naming the parameter, nothing sent', async () => {
    e2e.upstream.clear();
    // `provider` is the gateway's own field, which the SDK's request type does not know.
    const withPreference = { ...request, stop_sequences: ['5'], provider: { require_parameters: true } } as typeof request;
    const error = await rejectionOf(e2e.client.messages.create(withPreference));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const body = (error as InstanceType<typeof Anthropic.NotFoundError>).error as { error?: { message?: string } };
    expect(body.error?.message).toBe(`No endpoint can serve this request: no endpoint of ${MODEL} supports every parameter the request uses (stop_sequences)`);
    expect(e2e.upstream.requests).toHaveLength(0);
  });

  it('an empty list asks for nothing and is served', async () => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.fixture('openai-phase.1'));
    const message = await e2e.client.messages.create({ ...request, stop_sequences: [] });
    expect(message.type).toBe('message');
    expect(e2e.upstream.requests).toHaveLength(1);
  });
});
