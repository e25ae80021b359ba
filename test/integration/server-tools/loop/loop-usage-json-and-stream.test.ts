/**
 * Over HTTP, the usage a client reads at the end of a tool loop is the same whether it asked for JSON or a
 * stream: the final `message_delta` of a streamed loop carries the summed reasoning tokens
 * (`output_tokens_details`) the JSON message carries, as a plain translated stream's `message_delta` does.
 * Gemini reports its thinking as `thoughtsTokenCount`, billed as output.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, geminiStep } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost } from '#test/integration/providers-e2e/e2e-support.ts';
import { loopBody, PRICES, runLoop, useLoopGateway } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

const setup = useLoopGateway();

describe.each([false, true])('a Gemini tool loop with thinking (stream: %s)', (stream) => {
  it('sums input, output and reasoning tokens over the steps', async () => {
    setup.gemini.enqueue(
      geminiStep({ text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'Asia/Tokyo' } }], usage: { input: 40, output: 6, reasoning: 20 } }),
      geminiStep({ text: 'It is evening in Tokyo.', usage: { input: 90, output: 7, reasoning: 11 } }),
    );
    const answer = await runLoop(setup.gateway, loopBody('test/gemini', [{ type: 'gateway:datetime' }]), stream);

    expect(answer.message.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text']);
    // Output is what Gemini bills as output: the answer's tokens and its thoughts, 6 + 20 and 7 + 11.
    expect(answer.usage).toMatchObject({ input_tokens: 130, output_tokens: 44, output_tokens_details: { thinking_tokens: 31 } });
    expectCost(answer.usage.cost, priceOf(130, 44, PRICES.gemini));
  });
});

describe.each([false, true])('an Anthropic tool loop writing the cache for five minutes and for an hour (stream: %s)', (stream) => {
  it('gives the steps\' summed cache_creation split, the same in JSON and in the stream\'s message_delta', async () => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Asia/Tokyo' } }], usage: { input: 40, output: 6, cacheWrite: 1000, cacheWrite1h: 800 } }),
      anthropicStep({ text: 'It is evening in Tokyo.', usage: { input: 90, output: 7, cacheWrite: 300, cacheWrite1h: 0 } }),
    );
    const answer = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }], { provider: { order: ['alpha'] } }), stream);

    const summed = { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 800 };
    // JSON: the message's usage; stream: the closing message_delta's, as the SDK's stream events give it.
    expect(answer.usage).toMatchObject({ input_tokens: 130, output_tokens: 13, cache_creation_input_tokens: 1300, cache_creation: summed });
    // The SDK's finalMessage() reads the summed total from the message_delta either way.
    expect(answer.message.usage.cache_creation_input_tokens).toBe(1300);
    if (!stream) expect(answer.message.usage.cache_creation).toEqual(summed);
  });
});
