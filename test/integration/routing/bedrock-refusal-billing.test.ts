/**
 * Over HTTP, with the real Anthropic SDK: what a refused call on Amazon Bedrock (Converse) costs is what AWS
 * bills for it. A guardrail that blocks the prompt stops the call before the model runs (`stopReason:
 * guardrail_intervened`, its blocked message as the text, no output tokens), and AWS bills no model inference
 * for it: the refused call is listed in `usage.iterations` with the counts Bedrock reported, its tokens stay
 * on the generation record, but it adds nothing to the answer's `usage.cost` nor the record's cost. Before,
 * every Bedrock refusal was charged. A guardrail that blocks the model's response (the model wrote tokens) is
 * billed as inference, and so is Claude's own refusal on Converse (`content_filtered`), which carries no
 * category to tell an unbilled one from a billed one: both stay charged. `test/guarded` is on the fake Bedrock
 * at $1/$2 per million tokens, its fallback `test/backup` on Beta at $3/$4.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-how.html (How charges for Amazon Bedrock Guardrails are calculated)
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicStep, bedrockStep, reply, startFakeBedrock, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { askWithCost, fallbackRequest, micro, startRefusalGateway, type RefusalGateway } from '#test/integration/routing/refusal-support.ts';
import { modelYaml } from '#test/integration/routing/routing-support.ts';

const GUARDED = 'test/guarded';

const setup = useSuiteSetup<RefusalGateway & { bedrock: FakeUpstream }>({
  async start() {
    const bedrock = await startFakeBedrock();
    const provider = `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIAGUARDTEST0000001", secret_access_key: "guard/secret/access/key/0000000000000001" } }`;
    const refusal = await startRefusalGateway({}, { providers: [provider], models: [modelYaml(GUARDED, [{ provider: 'bedrock', model: 'anthropic.claude-guarded-v1:0', price: [1, 2] }])] });
    return {
      ...refusal,
      bedrock,
      clear() {
        refusal.clear();
        bedrock.clear();
      },
      async close() {
        await refusal.close();
        await bedrock.close();
      },
    };
  },
  stop: (running) => running.close(),
  reset: (running) => running.clear(),
});

const BLOCKED_MESSAGE = 'Sorry, the model cannot answer this question.';

/** A Converse answer (JSON or stream, as asked) stopped by `stopReason`, with `text` and Bedrock's usage. */
function refusedConverse(stopReason: string, text: string | undefined, usage: { input: number; output: number }): FakeReply {
  const reported = { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output };
  const content = text === undefined ? [] : [{ text }];
  const json = { output: { message: { role: 'assistant', content } }, stopReason, usage: reported, metrics: { latencyMs: 90 } };
  const blocks = text === undefined ? [] : [{ contentBlockDelta: { contentBlockIndex: 0, delta: { text } } }, { contentBlockStop: { contentBlockIndex: 0 } }];
  const events = [{ messageStart: { role: 'assistant' } }, ...blocks, { messageStop: { stopReason } }, { metadata: { usage: reported, metrics: { latencyMs: 90 } } }];
  return reply.either(reply.json(json), reply.events(events));
}

// The serving call: 60 in, 6 out on test/backup at $3/$4.
const SERVED = micro(60, 3) + micro(6, 4);

const CASES = [
  // The guardrail blocked the prompt: the model never ran, AWS bills no inference.
  { name: 'a guardrail that blocked the prompt', reply: () => refusedConverse('guardrail_intervened', BLOCKED_MESSAGE, { input: 40, output: 0 }), usage: { input: 40, output: 0 }, charge: 0 },
  // The guardrail blocked what the model wrote: the inference is billed.
  { name: 'a guardrail that blocked the response', reply: () => refusedConverse('guardrail_intervened', BLOCKED_MESSAGE, { input: 40, output: 12 }), usage: { input: 40, output: 12 }, charge: micro(40, 1) + micro(12, 2) },
  // Claude's own refusal on Converse: no category says it is unbilled.
  { name: 'Claude\'s refusal (content_filtered)', reply: () => refusedConverse('content_filtered', undefined, { input: 40, output: 0 }), usage: { input: 40, output: 0 }, charge: micro(40, 1) },
];

describe.each([false, true])('a Bedrock refusal (stream: %s)', (stream) => {
  it.each(CASES)('$name: listed with its counts, charged what AWS bills', async ({ reply: refused, usage, charge }) => {
    setup.bedrock.enqueue(refused());
    setup.serving.enqueue(anthropicStep({ text: 'Here is what I can say.', usage: { input: 60, output: 6 } }));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    const { message, cost, requestId } = await askWithCost(client, fallbackRequest({ model: GUARDED }), stream);

    expect(message.model).toBe('test/backup');
    expect(message.usage.iterations).toEqual([
      { type: 'message', model: GUARDED, input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      { type: 'fallback_message', model: 'test/backup', input_tokens: 60, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    ]);
    expect(cost).toBeCloseTo(SERVED + charge, 12);

    // The record keeps the refused call's tokens as Bedrock reported them, at no cost where AWS bills none.
    const record = await generationOf(setup.gateway, requestId);
    expect(record).toMatchObject({ status: 'success', model: 'test/backup', usage: { input_tokens: 60 + usage.input, output_tokens: 6 + usage.output } });
    expect(record.cost).toBeCloseTo(SERVED + charge, 12);
  });
});

describe.each([false, true])('a tool-loop step whose prompt Bedrock\'s guardrail blocked (stream: %s)', (stream) => {
  it('charges the finished step and the serving call, not the blocked one', async () => {
    setup.bedrock.enqueue(bedrockStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), refusedConverse('guardrail_intervened', BLOCKED_MESSAGE, { input: 40, output: 0 }));
    setup.serving.enqueue(anthropicStep({ text: 'It is noon in Paris.', usage: { input: 60, output: 6 } }));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    const request = fallbackRequest({ model: GUARDED, messages: [{ role: 'user' as const, content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:datetime' }] });
    const { message, cost, requestId } = await askWithCost(client, request, stream);

    const STEP_1 = micro(30, 1) + micro(5, 2);
    expect(message.usage.iterations?.[1]).toMatchObject({ type: 'message', model: GUARDED, input_tokens: 40, output_tokens: 0 });
    expect(cost).toBeCloseTo(STEP_1 + SERVED, 12);
    const record = await generationOf(setup.gateway, requestId);
    expect(record.cost).toBeCloseTo(STEP_1 + SERVED, 12);
    expect(record.tool_steps[1].cost).toBeCloseTo(SERVED, 12);
  });
});
