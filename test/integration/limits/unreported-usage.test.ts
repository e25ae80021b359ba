/**
 * An OpenAI-compatible upstream that reports no usage (ignores `stream_options.include_usage`, or answers
 * with `usage: null`) is not served free: the gateway estimates the tokens (input from the request, output
 * from the answer's content), tells the client so in `usage` (`estimated: true`), records the estimate with
 * `usage_estimated: true`, and charges it to the key's credit limit. Before, all of them read 0 tokens and $0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, LIMITED_PRICES, listedKey, postWithKey, streamWithKey } from './limits-support.ts';

const ANSWER = 'Hello! How can I help?';
// "Hello there" is 11 characters: 3 tokens at 4 characters a token; the answer's 22 characters are 6.
const ESTIMATED = { input: 3, output: 6 };
const ESTIMATED_COST = (ESTIMATED.input * LIMITED_PRICES.input + ESTIMATED.output * LIMITED_PRICES.output) / 1_000_000;

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  id: 'chatcmpl-nousage',
  object: 'chat.completion.chunk',
  created: 1_770_933_892,
  model: 'compat-model',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
});

// A stream as a server sends it that ignores stream_options.include_usage: no usage chunk before [DONE].
const STREAM_WITHOUT_USAGE = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hello! How ' }), chunk({ content: 'can I help?' }), chunk({}, 'stop')];
const JSON_WITH_NULL_USAGE = {
  id: 'chatcmpl-nullusage',
  object: 'chat.completion',
  created: 1_770_933_883,
  model: 'compat-model',
  choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
  usage: null,
};

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeOpenAiChat();
  const provider = `  compat: { family: openai-compatible, display_name: "Compat Cloud", base_url: "${upstream.baseURL}", api_key: "sk-compat-nousage-0001" }`;
  const catalog = catalogYaml([provider], [modelYaml('test/limited', [{ provider: 'compat', model: 'compat-model', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }])]);
  gateway = await startTestGateway({ catalogYaml: catalog, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The key's spending as `GET /keys` lists it, once it has reached `atLeast` (settling is off the request path). */
async function spentBy(hash: string, atLeast: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const cost = (await listedKey(gateway, hash)).usage.cost as number;
    if (cost >= atLeast - 1e-12 || Date.now() > deadline) return cost;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('an upstream that reports no usage', () => {
  it('a stream without a usage chunk: estimated in message_delta, recorded as estimated, charged to the key', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.events(STREAM_WITHOUT_USAGE));
    const call = await streamWithKey(gateway, issued.key);
    expect(call.status, JSON.stringify(call.error)).toBe(200);
    const text = call.events.filter((event) => event.event === 'content_block_delta').map((event) => (JSON.parse(event.data) as { delta: { text: string } }).delta.text);
    expect(text.join('')).toBe(ANSWER);
    const delta = JSON.parse(call.events.find((event) => event.event === 'message_delta')?.data ?? '{}') as { usage: Record<string, unknown> };
    expect(delta.usage).toMatchObject({ input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output, estimated: true });
    expect(delta.usage.cost).toBeCloseTo(ESTIMATED_COST, 12);

    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ status: 'success', usage_estimated: true, usage: { input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output } });
    expect(record.cost).toBeCloseTo(ESTIMATED_COST, 12);
    expect(await spentBy(issued.hash, ESTIMATED_COST)).toBeCloseTo(ESTIMATED_COST, 12);
  });

  it('a JSON answer with usage: null: estimated in usage, recorded as estimated, charged to the key', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.json(JSON_WITH_NULL_USAGE));
    const call = await postWithKey(gateway, issued.key);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(call.body.usage).toMatchObject({ input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output, estimated: true });
    expect(call.body.usage.cost).toBeCloseTo(ESTIMATED_COST, 12);

    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ usage_estimated: true, usage: { input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output } });
    expect(record.cost).toBeCloseTo(ESTIMATED_COST, 12);
    expect(await spentBy(issued.hash, ESTIMATED_COST)).toBeCloseTo(ESTIMATED_COST, 12);
  });

  it('reported usage is not marked estimated', async () => {
    upstream.enqueue(reply.json({ ...JSON_WITH_NULL_USAGE, usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } }));
    const issued = await issueLimitedKey(gateway, {});
    const call = await postWithKey(gateway, issued.key);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.usage).toMatchObject({ input_tokens: 9, output_tokens: 7 });
    expect(call.body.usage.estimated).toBeUndefined();
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ usage_estimated: false, usage: { input_tokens: 9, output_tokens: 7 } });
  });
});
