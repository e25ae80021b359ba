/**
 * Over HTTP, with the real Anthropic SDK and a key with a spending limit: a plain request (no gateway tools)
 * whose model refused before the next model answered is charged the refused call too, as its upstream bills
 * it: in the answer's `usage.cost`, the generation record (tokens and cost) and the key's spending, as a tool
 * loop's refused step is. The answer's top-level token counts are the serving call's own, as Anthropic's
 * server-side fallback reports them (a client reads them as its context size), and `usage.iterations` lists
 * each call, the refused hop a `message` on its model and the call that produced the message a
 * `fallback_message` (JSON and stream). `test/main` refuses at $1/$2 per million tokens, `test/backup` answers at $3/$4.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { askWithCost, attemptTrail, fallbackRequest, keyClient, micro, refusalStep, REFUSED_COST, SERVED_COST, servingStep, useRefusalGateway, type CostedAnswer } from '#test/integration/routing/refusal-support.ts';

const setup = useRefusalGateway();

// Refused on test/main (40 in, 8 read from cache at the input price, 1 out at $1/$2), answered on test/backup
// (60 in, 6 out at $3/$4).
const REFUSED = REFUSED_COST;
const ITERATIONS = [
  { type: 'message', model: 'test/main', input_tokens: 40, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 8 },
  { type: 'fallback_message', model: 'test/backup', input_tokens: 60, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
];

/** The answer to a request naming the fallback, its `usage.cost` and its generation id. */
const ask = (client: Anthropic, stream: boolean): Promise<CostedAnswer> => askWithCost(client, fallbackRequest(), stream);

describe.each([false, true])('a plain request refused before the next model answered it (stream: %s)', (stream) => {
  it("is charged the refused call: the answer's usage, the record and the key's spending, each call an iteration", async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const client = keyClient(setup.gateway, issued.key);
    setup.refusing.enqueue(refusalStep());
    setup.serving.enqueue(servingStep());
    const { message, cost, requestId } = await ask(client, stream);

    expect(message.content.map((block) => block.type)).toEqual(['text', 'fallback', 'text']);
    // The top-level counts are the serving call's alone (Anthropic never sums tokens of different models).
    expect(message.usage).toMatchObject({ input_tokens: 60, output_tokens: 6, cache_read_input_tokens: 0 });
    expect(cost).toBeCloseTo(REFUSED + SERVED_COST, 12);
    // The SDK's own type reads what the gateway listed: the refused call, then the one that served.
    expect(message.usage.iterations).toEqual(ITERATIONS);

    // The record counts every billed call: the refused one's tokens too.
    const record = await generationOf(setup.gateway, requestId);
    expect(record).toMatchObject({ status: 'success', model: 'test/backup', usage: { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 8 } });
    expect(record.cost).toBeCloseTo(REFUSED + SERVED_COST, 12);
    expect(attemptTrail(record)).toEqual(['test/main:refusal', 'test/backup:success']);

    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(REFUSED + SERVED_COST, 12);
  });
});

describe('a plain request without a refusal', () => {
  it.each([false, true])('has no iterations of the gateway and is charged its one call (stream: %s)', async (stream) => {
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    setup.refusing.enqueue(anthropicStep({ text: 'Hello.', usage: { input: 30, output: 5 } }));
    const { message, cost } = await ask(client, stream);

    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 5 });
    expect(message.usage.iterations ?? null).toBeNull();
    expect(cost).toBeCloseTo(micro(30, 1) + micro(5, 2), 12);
  });
});
