/**
 * Over HTTP, with the real Anthropic SDK and a key with a spending limit: a plain request whose model refused
 * BEFORE ANY OUTPUT (no content block; in a stream, no block started) in a category Anthropic does not bill
 * (`cyber`) is charged nothing for that call, as its upstream bills it: the call is still listed in
 * `usage.iterations` with its counts, and its tokens stay on the generation record, but the answer's
 * `usage.cost`, the record's cost and the key's spending are the serving call's alone. The same refusal in a
 * billed category (`bio`) is charged as before. `test/main` refuses at $1/$2 per million tokens, `test/backup`
 * answers at $3/$4.
 * @see https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback (How refusals are billed)
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { askWithCost, earlyRefusalStep, fallbackRequest, keyClient, micro, SERVED_COST, servingStep, useRefusalGateway, type CostedAnswer } from '#test/integration/routing/refusal-support.ts';

const setup = useRefusalGateway();

// Refused before any output on test/main (40 in, 8 read from cache, 0 out at $1/$2), answered on test/backup (60 in, 6 out at $3/$4).
const REFUSED = micro(40, 1) + micro(8, 1);
const ITERATIONS = [
  { type: 'message', model: 'test/main', input_tokens: 40, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 8 },
  { type: 'fallback_message', model: 'test/backup', input_tokens: 60, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
];

/** The answer to a request naming the fallback, its `usage.cost` and its generation id. */
const ask = (client: Anthropic, stream: boolean): Promise<CostedAnswer> => askWithCost(client, fallbackRequest(), stream);

describe.each([false, true])('a plain request refused before any output (stream: %s)', (stream) => {
  it.each([
    ['cyber', 0],
    ['bio', REFUSED],
  ])('in %s: the refused call is listed, charged %s', async (category, refusedCharge) => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const client = keyClient(setup.gateway, issued.key);
    setup.refusing.enqueue(earlyRefusalStep(category));
    setup.serving.enqueue(servingStep());
    const { message, cost, requestId } = await ask(client, stream);

    expect(message.content.map((block) => block.type)).toEqual(['fallback', 'text']);
    expect(message.usage).toMatchObject({ input_tokens: 60, output_tokens: 6 });
    // Listed with its counts whether billed or not: they are what the upstream reported.
    expect(message.usage.iterations).toEqual(ITERATIONS);
    expect(cost).toBeCloseTo(SERVED_COST + refusedCharge, 12);

    // The record keeps the refused call's tokens as reported, at no cost when it is not billed.
    const record = await generationOf(setup.gateway, requestId);
    expect(record).toMatchObject({ status: 'success', model: 'test/backup', usage: { input_tokens: 100, output_tokens: 6, cache_read_input_tokens: 8 } });
    expect(record.cost).toBeCloseTo(SERVED_COST + refusedCharge, 12);

    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(SERVED_COST + refusedCharge, 12);
  });
});
