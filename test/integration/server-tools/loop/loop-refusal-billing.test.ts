/**
 * Over HTTP, with the real Anthropic SDK and a key with a spending limit: a tool-loop step whose model refused
 * BEFORE ANY OUTPUT in a category Anthropic does not bill (`cyber`) is charged nothing for that call, as its
 * upstream bills it: the call is an entry of `usage.iterations` with its counts and its tokens stay among the
 * answer's and the record's, but the answer's `usage.cost`, the record (its cost and the step's) and the key's
 * spending leave it out (JSON and stream), and so does the record of a loop whose next model then failed.
 * `test/main` runs on Alpha at $1/$2 per million tokens, `test/backup` on Beta at $3/$4.
 * @see https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback (How refusals are billed)
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { askWithCost, earlyRefusalStep, fallbackRequest, keyClient, micro, SERVED_COST, useRefusalGateway, type CostedAnswer } from '#test/integration/routing/refusal-support.ts';

const setup = useRefusalGateway();

const EARLY_REFUSAL = { input: 40, output: 0 } as const;
// Step 1 on test/main (30 in, 5 out at $1/$2); step 2 refused before any output on test/main (40 in, not
// billed), then answered on test/backup (60 in, 6 out at $3/$4).
const STEP_1 = micro(30, 1) + micro(5, 2);
const REFUSED_ITERATION = { type: 'message', model: 'test/main', input_tokens: 40, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function loopRequest() {
  return fallbackRequest({ messages: [{ role: 'user' as const, content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:datetime' }] }) as Anthropic.Beta.MessageCreateParamsNonStreaming;
}

/** The loop's answer, its `usage.cost` and its generation id. */
const ask = (client: Anthropic, stream: boolean): Promise<CostedAnswer> => askWithCost(client, loopRequest(), stream);

const limitedClient = (key: string): Anthropic => keyClient(setup.gateway, key);

describe.each([false, true])('a loop step refused before any output in an unbilled category (stream: %s)', (stream) => {
  it("lists the refused call but charges nothing for it: the answer's cost, the record and the key's spending", async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), earlyRefusalStep('cyber', EARLY_REFUSAL));
    setup.serving.enqueue(anthropicStep({ text: 'It is noon in Paris.', usage: { input: 60, output: 6 } }));
    const { message, cost, requestId } = await ask(limitedClient(issued.key), stream);

    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'fallback', 'text']);
    // The loop's counts sum every call's, the unbilled one's too (its upstream reported them).
    expect(message.usage).toMatchObject({ input_tokens: 130, output_tokens: 11 });
    expect(message.usage.iterations?.[1]).toEqual(REFUSED_ITERATION);
    expect(message.usage.iterations).toHaveLength(3);
    expect(cost).toBeCloseTo(STEP_1 + SERVED_COST, 12);

    const record = await generationOf(setup.gateway, requestId);
    expect(record).toMatchObject({ status: 'success', usage: { input_tokens: 130, output_tokens: 11 } });
    expect(record.cost).toBeCloseTo(STEP_1 + SERVED_COST, 12);
    expect(record.tool_steps[1].cost).toBeCloseTo(SERVED_COST, 12);
    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(STEP_1 + SERVED_COST, 12);
  });
});

describe('a loop step refused before any output, then a request error of the next model', () => {
  it("is charged its finished step only: the record keeps the refused call's tokens at no cost", async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), earlyRefusalStep('cyber', EARLY_REFUSAL));
    setup.serving.enqueue(reply.error(400));
    const failure = await limitedClient(issued.key).beta.messages.create(loopRequest()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    const id = (failure as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-generation-id') ?? '';

    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ status: 'error', usage: { input_tokens: 70, output_tokens: 5 } });
    expect(record.cost).toBeCloseTo(STEP_1, 12);
    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(STEP_1, 12);
  });
});
