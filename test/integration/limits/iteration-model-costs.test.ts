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
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { issueLimitedKey } from '#test/integration/limits/limits-support.ts';
import { expectCharged, postForCost } from './cost-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

// USD per million tokens (input, output); every model on one Anthropic-format provider, by Anthropic's ids.
const SONNET = [3, 15] as const;
const OPUS_ADVISOR = [5, 25] as const;
const FABLE = [10, 50] as const;
const OPUS_FALLBACK = [6, 30] as const;

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

const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 4096, messages: [{ role: 'user', content: 'Build a worker pool in Go.' }], ...extra });

describe("the advisor tool's iteration, at the advisor model's prices", () => {
  it('JSON: the executor counts at its prices, the advisor_message iteration at claude-opus-4-7 prices', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-advisor-20260301.1.json'));
    const answer = await postForCost(gateway, issued.key, ask('test/sonnet'));
    expect(answer.usage).toMatchObject({ input_tokens: 2414, output_tokens: 3200 });
    // Executor 2414 in, 3200 out at Sonnet's; advisor 2728 in, 874 out at Opus 4.7's.
    await expectCharged(gateway, issued, answer, priceOf(2414, 3200, SONNET) + priceOf(2728, 874, OPUS_ADVISOR));
  });

  it("stream: the advisor iteration the message_delta lists", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-advisor-20260301.1.chunks.txt'));
    const answer = await postForCost(gateway, issued.key, ask('test/sonnet', { stream: true }));
    expect(answer.usage).toMatchObject({ input_tokens: 4727, output_tokens: 3391 });
    await expectCharged(gateway, issued, answer, priceOf(4727, 3391, SONNET) + priceOf(2728, 3880, OPUS_ADVISOR));
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
    const answer = await postForCost(gateway, issued.key, { ...ask('test/sonnet'), tools: [{ type: 'gateway:datetime' }], stream });
    const second = priceOf(1200, 10, SONNET) + priceOf(3000, 800, OPUS_ADVISOR);
    expect(answer.steps?.[1]?.cost).toBeCloseTo(second, 12);
    await expectCharged(gateway, issued, answer, priceOf(1000, 100, SONNET) + second);
  });
});

describe("Anthropic's server-side fallback, each iteration at its model's prices", () => {
  // The refused claude-fable-5 iteration (408 in, 0 out) and the serving claude-opus-4-8 one (412 in, 264 out).
  const EXPECTED = priceOf(408, 0, FABLE) + priceOf(412, 264, OPUS_FALLBACK);

  it.each([
    ['JSON', 'anthropic-fallback.json', false],
    ['stream', 'anthropic-fallback.chunks.txt', true],
  ])('%s', async (_form, fixture, stream) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture(fixture));
    const answer = await postForCost(gateway, issued.key, ask('test/fable', { stream }));
    expect(answer.usage).toMatchObject({ input_tokens: 412, output_tokens: 264 });
    await expectCharged(gateway, issued, answer, EXPECTED);
  });
});
