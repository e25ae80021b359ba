/**
 * Over HTTP, with the real Anthropic SDK and a key with a spending limit: a tool-loop step whose model refused
 * before the next model answered it is charged the refused call too, as its upstream bills it: in the answer's
 * `usage` (tokens and `cost`), the generation record (totals and `tool_steps`) and the key's spending. Each model
 * call of the loop is an entry of `usage.iterations` (JSON and stream), as Anthropic lists the sampling
 * iterations of its own server-side loops and fallbacks: the refused hop a `message` on its model, the call that
 * produced the returned message a `fallback_message` on the model that served it.
 * `test/main` runs on Alpha at $1/$2 per million tokens, `test/backup` on Beta at $3/$4.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { askWithCost, attemptTrail, fallbackRequest, keyClient, micro, refusalStep, SERVED_COST, useRefusalGateway, type CostedAnswer } from '#test/integration/routing/refusal-support.ts';

const setup = useRefusalGateway();

const REFUSAL_USAGE = { input: 40, output: 1 } as const;
// Step 1 on test/main (30 in, 5 out at $1/$2); step 2 refused on test/main (40 in, 1 out at $1/$2), then
// answered on test/backup (60 in, 6 out at $3/$4).
const STEP_1 = micro(30, 1) + micro(5, 2);
const REFUSED = micro(40, 1) + micro(1, 2);
const TOTAL = STEP_1 + REFUSED + SERVED_COST;
const ITERATIONS = [
  { type: 'message', model: 'test/main', input_tokens: 30, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  { type: 'message', model: 'test/main', input_tokens: 40, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  { type: 'fallback_message', model: 'test/backup', input_tokens: 60, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
];

/** The loop's request, naming the fallback and the gateway's datetime tool. */
const loopRequest = () => fallbackRequest({ messages: [{ role: 'user' as const, content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:datetime' }] });

/** The loop's answer, its `usage.cost` and its generation id. */
const ask = (client: Anthropic, stream: boolean): Promise<CostedAnswer> => askWithCost(client, loopRequest(), stream);

describe.each([false, true])('a loop step refused before the next model answered it (stream: %s)', (stream) => {
  it("is charged the refused call: the answer's usage, the record and the key's spending, each call an iteration", async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const client = keyClient(setup.gateway, issued.key);
    setup.refusing.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), refusalStep(REFUSAL_USAGE));
    setup.serving.enqueue(anthropicStep({ text: 'It is noon in Paris.', usage: { input: 60, output: 6 } }));
    const { message, cost, requestId } = await ask(client, stream);

    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text', 'fallback', 'text']);
    expect(message.usage).toMatchObject({ input_tokens: 130, output_tokens: 12 });
    expect(cost).toBeCloseTo(TOTAL, 12);
    // The SDK's own type reads what the gateway listed: every model call, in order.
    expect(message.usage.iterations).toEqual(ITERATIONS);

    const record = await generationOf(setup.gateway, requestId);
    expect(record).toMatchObject({ status: 'success', usage: { input_tokens: 130, output_tokens: 12 } });
    expect(record.cost).toBeCloseTo(TOTAL, 12);
    expect(attemptTrail(record)).toEqual(['test/main:success', 'test/main:refusal', 'test/backup:success']);
    expect(record.tool_steps).toHaveLength(2);
    expect(record.tool_steps[0]).toMatchObject({ model: 'test/main', usage: { input_tokens: 30, output_tokens: 5 } });
    expect(record.tool_steps[0].cost).toBeCloseTo(STEP_1, 12);
    expect(record.tool_steps[1]).toMatchObject({ model: 'test/backup', usage: { input_tokens: 100, output_tokens: 7 } });
    expect(record.tool_steps[1].cost).toBeCloseTo(REFUSED + SERVED_COST, 12);

    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(TOTAL, 12);
  });
});

describe('a loop without a refusal', () => {
  it.each([false, true])('lists each step as a message iteration on its model (stream: %s)', async (stream) => {
    const client = keyClient(setup.gateway, setup.gateway.api_key);
    setup.refusing.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), anthropicStep({ text: 'It is noon in Paris.', usage: { input: 50, output: 7 } }));
    const { message } = await ask(client, stream);

    expect(message.usage).toMatchObject({ input_tokens: 80, output_tokens: 12 });
    expect(message.usage.iterations).toEqual([ITERATIONS[0], { ...ITERATIONS[0], input_tokens: 50, output_tokens: 7 }]);
  });
});

describe('a loop step refused, then a request error of the next model', () => {
  it("is charged its finished step and the refused call: the record and the key's spending", async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const client = keyClient(setup.gateway, issued.key);
    setup.refusing.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), refusalStep(REFUSAL_USAGE));
    setup.serving.enqueue(reply.error(400));
    const failure = await client.beta.messages.create(loopRequest() as Anthropic.Beta.MessageCreateParamsNonStreaming).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    const id = (failure as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-generation-id') ?? '';

    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ status: 'error', usage: { input_tokens: 70, output_tokens: 6 } });
    expect(record.cost).toBeCloseTo(STEP_1 + REFUSED, 12);
    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(STEP_1 + REFUSED, 12);
  });
});
