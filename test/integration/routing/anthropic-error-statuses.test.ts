/**
 * A plan whose attempts all failed alike answers what Anthropic itself answers for that failure, since the
 * Anthropic SDKs and Claude Code act on the status: 529 `overloaded_error` when every upstream was
 * overloaded (retried by the SDK, reported as "overloaded" by Claude Code), 504 `timeout_error` when every
 * upstream timed out, 413 `request_too_large` when every
 * upstream refused the body's size. A body too large for one vendor is tried on the next, whose limit may be
 * larger. Driven through the real Anthropic SDK where its reaction is the point.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { ALPHA_FIRST, WITH_METADATA, anthropicClient, errorMessage, messageBody, metadataOf, postMessage, rejection, useAlphaBetaGateway } from './routing-support.ts';

const setup = useAlphaBetaGateway();
const REQUEST = messageBody('test/primary', ALPHA_FIRST) as unknown as Anthropic.MessageCreateParamsNonStreaming;

describe('every upstream overloaded', () => {
  it('answers 529 overloaded_error, as Anthropic does, with the soonest retry-after', async () => {
    setup.alpha.enqueue(reply.error(529, { headers: { 'retry-after': '7' } }));
    setup.beta.enqueue(reply.error(529, { headers: { 'retry-after': '3' } }));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(529);
    expect(call.body.error).toMatchObject({ type: 'overloaded_error', code: 529 });
    expect(errorMessage(call)).toMatch(/on Alpha Cloud: overloaded \(529\).*on Beta Cloud: overloaded \(529\)/);
    expect(call.headers.get('retry-after')).toBe('3');
  });

  it('a stream that could not start gets the same 529 through the SDK', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.error(529));
    const error = await rejection(anthropicClient(setup.gateway).messages.stream(REQUEST).finalMessage());

    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error.type).toBe('overloaded_error');
  });

  it('the SDK retries the 529 on its own, and its retry is served', async () => {
    setup.alpha.enqueue(reply.error(529, { headers: { 'retry-after': '0' } }), reply.fixture('anthropic-text'));
    setup.beta.enqueue(reply.error(529, { headers: { 'retry-after': '0' } }));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, apiKey: setup.gateway.api_key, maxRetries: 1, timeout: 10_000 });
    const message = await client.messages.create(REQUEST);

    expect(message.stop_reason).toBe('end_turn');
    expect(setup.alpha.requests).toHaveLength(2);
  });

  it('rate limited on one provider and overloaded on the other keeps the 503', async () => {
    setup.alpha.enqueue(reply.error(429));
    setup.beta.enqueue(reply.error(529));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(503);
    expect(call.body.error).toMatchObject({ type: 'overloaded_error', code: 503 });
  });
});

describe('every upstream timed out', () => {
  it('answers 504 timeout_error, as Anthropic does, which the SDK reads as a gateway timeout', async () => {
    setup.alpha.enqueue(reply.error(504));
    setup.beta.enqueue(reply.error(504));
    const error = await rejection(anthropicClient(setup.gateway).messages.create(REQUEST));

    expect(error).toBeInstanceOf(Anthropic.GatewayTimeoutError);
    expect(error.type).toBe('timeout_error');
  });

  it('timed out on one provider and overloaded on the other answers 503', async () => {
    setup.alpha.enqueue(reply.error(504));
    setup.beta.enqueue(reply.error(529));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(503);
    expect(call.body.error).toMatchObject({ type: 'overloaded_error', code: 503 });
  });
});

describe('a body over an upstream size limit', () => {
  it('is tried on the next provider, and the attempt says why it moved on', async () => {
    setup.alpha.enqueue(reply.error(413));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.provider).toBe('Beta Cloud');
    expect(metadataOf(call).attempts.map(({ provider, status, http_status }) => ({ provider, status, http_status }))).toEqual([
      { provider: 'Alpha Cloud', status: 'request_too_large', http_status: 413 },
      { provider: 'Beta Cloud', status: 'success', http_status: 200 },
    ]);
  });

  it('refused by every provider answers 413 request_too_large, which the SDK does not retry', async () => {
    setup.alpha.enqueue(reply.error(413));
    setup.beta.enqueue(reply.error(413));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, apiKey: setup.gateway.api_key, maxRetries: 2, timeout: 10_000 });
    const error = await rejection(client.messages.create(REQUEST));

    expect(error).toBeInstanceOf(Anthropic.ContentTooLargeError);
    expect(error.type).toBe('request_too_large');
    expect(error.message).toMatch(/on Alpha Cloud: request too large \(413\).*on Beta Cloud: request too large \(413\)/);
    expect(setup.alpha.requests).toHaveLength(1);
    expect(setup.beta.requests).toHaveLength(1);
  });
});
