/**
 * An upstream that is rate limited or overloaded says when to come back in `retry-after`; the Anthropic SDK
 * waits that long before its automatic retry. Through the gateway the client must hear the same wait (the
 * soonest, when every attempt of the plan named one), or its retries land while the upstream still refuses.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { ALPHA_FIRST, anthropicClient, messageBody, postMessage, rejection, useAlphaBetaGateway } from './routing-support.ts';

const setup = useAlphaBetaGateway();
const REQUEST = messageBody('test/primary', ALPHA_FIRST) as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe("the upstream's retry-after reaches the client", () => {
  it('a 429 from every attempt answers 429 with the soonest retry-after', async () => {
    setup.alpha.enqueue(reply.error(429, { headers: { 'retry-after': '30' } }));
    setup.beta.enqueue(reply.error(429, { headers: { 'retry-after': '17' } }));
    const error = await rejection(anthropicClient(setup.gateway).messages.create(REQUEST));

    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('17');
  });

  it('an overloaded 529 with retry-after answers 529 with it, streamed requests included', async () => {
    setup.alpha.enqueue(reply.error(529, { headers: { 'retry-after': '4' } }));
    setup.beta.enqueue(reply.error(529, { headers: { 'retry-after': '9' } }));
    const stream = anthropicClient(setup.gateway).messages.stream(REQUEST);
    const error = await rejection(stream.finalMessage());

    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error.headers?.get('retry-after')).toBe('4');
  });

  it('an HTTP-date retry-after is given back in seconds', async () => {
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString();
    setup.alpha.enqueue(reply.error(429, { headers: { 'retry-after': inOneMinute } }));
    setup.beta.enqueue(reply.error(429, { headers: { 'retry-after': inOneMinute } }));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(429);
    expect(Number(call.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(Number(call.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('says nothing when one attempt named no wait: the client backs off on its own', async () => {
    setup.alpha.enqueue(reply.error(429, { headers: { 'retry-after': '30' } }));
    setup.beta.enqueue(reply.error(529));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(503);
    expect(call.headers.get('retry-after')).toBeNull();
  });

  it('the SDK waits the upstream\'s time before its automatic retry, which then succeeds', async () => {
    setup.alpha.enqueue(reply.error(429, { headers: { 'retry-after': '2' } }), reply.fixture('anthropic-text'));
    setup.beta.enqueue(reply.error(429, { headers: { 'retry-after': '2' } }));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, apiKey: setup.gateway.api_key, maxRetries: 1, timeout: 10_000 });
    const started = performance.now();
    const message = await client.messages.create(REQUEST);

    expect(message.stop_reason).toBe('end_turn');
    // Without the header the SDK's first backoff is at most half a second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(setup.alpha.requests).toHaveLength(2);
  });
});
