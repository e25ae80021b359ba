/**
 * Usage Anthropic reports for another model than the one asked for, charged at that model's prices over HTTP:
 * the advisor tool's `advisor_message` iteration (left out of the top-level counts, which are the executor's)
 * and Anthropic's server-side fallback, whose `fallback_message` iteration is the answer's counts on the
 * fallback model and whose refused `message` iteration is on the requested one. Real recordings
 * (`anthropic-advisor-20260301.1`, `anthropic-fallback`); the client's `usage.cost`, the generation record
 * (`GET /generations/{id}`) and the key's spending must agree, JSON, stream and tool-loop step alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey, type IssuedKey } from '#test/integration/limits/limits-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

// USD per million tokens (input, output); every model on one Anthropic-format provider, by Anthropic's ids.
const SONNET = [3, 15] as const;
const OPUS_ADVISOR = [5, 25] as const;
const FABLE = [10, 50] as const;
const OPUS_FALLBACK = [6, 30] as const;
const priced = (price: readonly [number, number], input: number, output: number) => (input * price[0] + output * price[1]) / 1_000_000;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  const models = [
    modelYaml('test/sonnet', [{ provider: 'alpha', model: 'claude-sonnet-4-6', price: [...SONNET] }]),
    modelYaml('test/opus-advisor', [{ provider: 'alpha', model: 'claude-opus-4-7', price: [...OPUS_ADVISOR] }]),
    modelYaml('test/fable', [{ provider: 'alpha', model: 'claude-fable-5', price: [...FABLE] }]),
    modelYaml('test/opus-fallback', [{ provider: 'alpha', model: 'claude-opus-4-8', price: [...OPUS_FALLBACK] }]),
  ];
  gateway = await startTestGateway({ catalogYaml: catalogYaml([anthropicProviderYaml('alpha', upstream)], models), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface Answer {
  id: string;
  usage: Record<string, any>;
  steps?: Array<{ cost: number }>;
}

/** Posts as a client of `key` would and reads the answer to its end (a stream's usage is its last message_delta's). */
async function post(key: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-gateway-metadata': 'enabled' },
    body: JSON.stringify(body),
  });
  const id = response.headers.get('request-id') ?? '';
  if (body.stream !== true) {
    const message = (await response.json()) as Record<string, any>;
    expect(response.status, JSON.stringify(message)).toBe(200);
    return { id, usage: message.usage, steps: message.gateway_metadata?.steps };
  }
  expect(response.status).toBe(200);
  let usage: Record<string, any> = {};
  let steps: Answer['steps'];
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
    if (event.event === 'message_delta') usage = (JSON.parse(event.data) as { usage: Record<string, any> }).usage;
    if (event.event === 'message_stop') steps = (JSON.parse(event.data) as { gateway_metadata?: { steps?: Answer['steps'] } }).gateway_metadata?.steps;
  }
  return { id, usage, steps };
}

async function expectCharged(issued: IssuedKey, answer: Answer, expected: number): Promise<void> {
  const record = await generationOf(gateway, answer.id);
  const key = (await listedKey(gateway, issued.hash)).usage.cost as number;
  expect(answer.usage.cost).toBeCloseTo(expected, 12);
  expect(record.cost).toBeCloseTo(expected, 12);
  expect(key).toBeCloseTo(expected, 12);
}

const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 4096, messages: [{ role: 'user', content: 'Build a worker pool in Go.' }], ...extra });

describe("the advisor tool's iteration, at the advisor model's prices", () => {
  it('JSON: the executor counts at its prices, the advisor_message iteration at claude-opus-4-7 prices', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-advisor-20260301.1.json'));
    const answer = await post(issued.key, ask('test/sonnet'));
    expect(answer.usage).toMatchObject({ input_tokens: 2414, output_tokens: 3200 });
    // Executor 2414 in, 3200 out at Sonnet's; advisor 2728 in, 874 out at Opus 4.7's.
    await expectCharged(issued, answer, priced(SONNET, 2414, 3200) + priced(OPUS_ADVISOR, 2728, 874));
  });

  it("stream: the advisor iteration the message_delta lists", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-advisor-20260301.1.chunks.txt'));
    const answer = await post(issued.key, ask('test/sonnet', { stream: true }));
    expect(answer.usage).toMatchObject({ input_tokens: 4727, output_tokens: 3391 });
    await expectCharged(issued, answer, priced(SONNET, 4727, 3391) + priced(OPUS_ADVISOR, 2728, 3880));
  });

  it.each([false, true])('a tool-loop step with an advisor iteration (stream: %s)', async (stream) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    const advisor = { type: 'advisor_message', model: 'claude-opus-4-7', input_tokens: 3000, output_tokens: 800, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    upstream.enqueue(
      anthropicStep({ text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 1000, output: 100 } }),
      anthropicStep({
        text: 'It is noon.',
        usage: { input: 1200, output: 10 },
        moreUsage: { iterations: [{ type: 'message', input_tokens: 600, output_tokens: 5 }, advisor, { type: 'message', input_tokens: 600, output_tokens: 5 }] },
      }),
    );
    const answer = await post(issued.key, { ...ask('test/sonnet'), tools: [{ type: 'gateway:datetime' }], stream });
    const second = priced(SONNET, 1200, 10) + priced(OPUS_ADVISOR, 3000, 800);
    expect(answer.steps?.[1]?.cost).toBeCloseTo(second, 12);
    await expectCharged(issued, answer, priced(SONNET, 1000, 100) + second);
  });
});

describe("Anthropic's server-side fallback, each iteration at its model's prices", () => {
  // The refused claude-fable-5 iteration (408 in, 0 out) and the serving claude-opus-4-8 one (412 in, 264 out).
  const EXPECTED = priced(FABLE, 408, 0) + priced(OPUS_FALLBACK, 412, 264);

  it.each([
    ['JSON', 'anthropic-fallback.json', false],
    ['stream', 'anthropic-fallback.chunks.txt', true],
  ])('%s', async (_form, fixture, stream) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture(fixture));
    const answer = await post(issued.key, ask('test/fable', { stream }));
    expect(answer.usage).toMatchObject({ input_tokens: 412, output_tokens: 264 });
    await expectCharged(issued, answer, EXPECTED);
  });
});
