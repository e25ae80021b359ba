/**
 * Over HTTP, with the real Anthropic SDK and a key with a spending limit: a plain request (no gateway tools)
 * whose model refused before the next model answered is charged the refused call too, as its upstream bills
 * it: in the answer's `usage` (tokens and `cost`), the generation record and the key's spending, as a tool
 * loop's refused step is. `usage.iterations` lists each call, the refused hop a `message` on its model and the
 * call that produced the message a `fallback_message` (JSON and stream).
 * `test/main` runs on Alpha at $1/$2 per million tokens, `test/backup` on Beta at $3/$4.
 */
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [modelYaml('test/main', [{ provider: 'alpha', model: 'up-main-alpha', price: [1, 2] }]), modelYaml('test/backup', [{ provider: 'beta', model: 'up-backup-beta', price: [3, 4] }])],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => {
  alpha.clear();
  beta.clear();
});

const REFUSAL = { text: 'I', stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber', explanation: 'Not this one.' }, usage: { input: 40, output: 1, cacheRead: 8 } } as const;
const micro = (tokens: number, price: number) => (tokens * price) / 1_000_000;
// Refused on test/main (40 in, 8 read from cache at the input price, 1 out at $1/$2), answered on test/backup
// (60 in, 6 out at $3/$4).
const REFUSED = micro(40, 1) + micro(8, 1) + micro(1, 2);
const SERVED = micro(60, 3) + micro(6, 4);
const ITERATIONS = [
  { type: 'message', model: 'test/main', input_tokens: 40, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 8 },
  { type: 'fallback_message', model: 'test/backup', input_tokens: 60, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
];

/** The answer, its `usage.cost` (a stream's from its closing `message_delta`, which the SDK does not keep) and its generation id. */
async function ask(client: Anthropic, stream: boolean): Promise<{ message: Anthropic.Beta.BetaMessage; cost: number | undefined; requestId: string }> {
  const request = {
    model: 'test/main',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'Tell me about port scanners.' }],
    fallbacks: [{ model: 'test/backup' }],
    // A session per request, so that no sticky pin from an earlier test reorders the plan.
    session_id: randomUUID(),
  } as Parameters<typeof client.beta.messages.create>[0] & { stream?: false };
  if (!stream) {
    const { data, request_id } = await client.beta.messages.create(request).withResponse();
    return { message: data, cost: (data.usage as unknown as { cost?: number }).cost, requestId: request_id ?? '' };
  }
  const events = client.beta.messages.stream(request);
  let cost: number | undefined;
  events.on('streamEvent', (event) => {
    if (event.type === 'message_delta') cost = (event.usage as unknown as { cost?: number }).cost;
  });
  const message = await events.finalMessage();
  return { message, cost, requestId: events.request_id ?? '' };
}

describe.each([false, true])('a plain request refused before the next model answered it (stream: %s)', (stream) => {
  it("is charged the refused call: the answer's usage, the record and the key's spending, each call an iteration", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: issued.key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    alpha.enqueue(anthropicStep(REFUSAL));
    beta.enqueue(anthropicStep({ text: 'Port scanners probe hosts for open ports.', usage: { input: 60, output: 6 } }));
    const { message, cost, requestId } = await ask(client, stream);

    expect(message.content.map((block) => block.type)).toEqual(['text', 'fallback', 'text']);
    expect(message.usage).toMatchObject({ input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 8 });
    expect(cost).toBeCloseTo(REFUSED + SERVED, 12);
    // The SDK's own type reads what the gateway listed: the refused call, then the one that served.
    expect(message.usage.iterations).toEqual(ITERATIONS);

    const record = await generationOf(gateway, requestId);
    expect(record).toMatchObject({ status: 'success', model: 'test/backup', usage: { input_tokens: 100, output_tokens: 7 } });
    expect(record.cost).toBeCloseTo(REFUSED + SERVED, 12);
    expect(record.attempts.map((attempt: { model: string; status: string }) => `${attempt.model}:${attempt.status}`)).toEqual(['test/main:refusal', 'test/backup:success']);

    expect((await listedKey(gateway, issued.hash)).usage.cost).toBeCloseTo(REFUSED + SERVED, 12);
  });
});

describe('a plain request without a refusal', () => {
  it.each([false, true])('has no iterations of the gateway and is charged its one call (stream: %s)', async (stream) => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    alpha.enqueue(anthropicStep({ text: 'Hello.', usage: { input: 30, output: 5 } }));
    const { message, cost } = await ask(client, stream);

    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 5 });
    expect(message.usage.iterations ?? null).toBeNull();
    expect(cost).toBeCloseTo(micro(30, 1) + micro(5, 2), 12);
  });
});
