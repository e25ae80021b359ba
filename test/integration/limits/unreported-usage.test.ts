/**
 * An OpenAI-compatible upstream that reports no usage (ignores `stream_options.include_usage`, or answers
 * with `usage: null` or with null counts) is not served free: the gateway estimates the tokens (input from the request, output
 * from the answer's content), tells the client so in `usage` (`estimated: true`), records the estimate with
 * `usage_estimated: true`, and charges it to the key's credit limit. Before, all of them read 0 tokens and $0.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { EitherReply, EventsReply, JsonReply } from '#test/helpers/fake-upstreams/fake-reply.ts';
import type { ScriptedStep } from '#test/helpers/fake-upstreams/tool-steps.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf, waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { issueLimitedKey, LIMITED_PRICES, LIMITED_REQUEST, limitedCost, listedKey, postWithKey, streamWithKey } from './limits-support.ts';

const ANSWER = 'Hello! How can I help?';
// "Hello there" is 11 characters: 3 tokens at 4 characters a token; the answer's 22 characters are 6.
const ESTIMATED = { input: 3, output: 6 };
const ESTIMATED_COST = limitedCost(ESTIMATED.input, ESTIMATED.output);

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

/** A scripted tool-loop step whose JSON answer has `usage: null` and whose stream has no usage chunk. */
function stepWithoutUsage(step: Omit<ScriptedStep, 'usage'>): EitherReply {
  const scripted = openAiChatStep({ ...step, usage: { input: 0, output: 0 } });
  const json = scripted.json as JsonReply;
  const stream = scripted.stream as EventsReply;
  return reply.either(reply.json({ ...(json.body as object), usage: null }), reply.events(stream.events.filter((event) => (event as { usage?: unknown }).usage === undefined)));
}

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeOpenAiChat();
  const provider = `  compat: { family: openai-compatible, display_name: "Compat Cloud", base_url: "${upstream.baseURL}", api_key: "sk-compat-nousage-0001" }`;
  const catalog = catalogYaml([provider], [modelYaml('test/limited', [{ provider: 'compat', model: 'compat-model', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }])]);
  gateway = await startTestGateway({ catalogYaml: catalog, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
});
beforeEach(() => upstream.clear());
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

  // Some OpenAI-compatible servers send the usage object with null counts; the AI SDK reads them as 0.
  const NULL_COUNTS = { prompt_tokens: null, completion_tokens: null, total_tokens: null };

  it('a JSON answer whose usage counts are null: estimated, recorded as estimated, charged to the key', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.json({ ...JSON_WITH_NULL_USAGE, usage: NULL_COUNTS }));
    const call = await postWithKey(gateway, issued.key);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.usage).toMatchObject({ input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output, estimated: true });
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ usage_estimated: true, usage: { input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output } });
    expect(record.cost).toBeCloseTo(ESTIMATED_COST, 12);
    expect(await spentBy(issued.hash, ESTIMATED_COST)).toBeCloseTo(ESTIMATED_COST, 12);
  });

  it('a stream whose usage chunk has null counts: estimated in message_delta and charged', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.events([...STREAM_WITHOUT_USAGE, { ...chunk({}), choices: [], usage: NULL_COUNTS }]));
    const call = await streamWithKey(gateway, issued.key);
    expect(call.status, JSON.stringify(call.error)).toBe(200);
    const delta = JSON.parse(call.events.find((event) => event.event === 'message_delta')?.data ?? '{}') as { usage: Record<string, unknown> };
    expect(delta.usage).toMatchObject({ input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output, estimated: true });
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ usage_estimated: true, usage: { input_tokens: ESTIMATED.input, output_tokens: ESTIMATED.output } });
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

  it.each([false, true])('a tool loop whose steps report no usage (stream: %s): the sum is estimated, recorded so and charged', async (stream) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(stepWithoutUsage({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }] }), stepWithoutUsage({ text: ANSWER }));
    const body = { ...LIMITED_REQUEST, tools: [{ type: 'gateway:datetime' }], ...(stream ? { stream: true } : {}) };
    const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${issued.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    let usage: Record<string, unknown>;
    if (stream) {
      const events: { event?: string; data: string }[] = [];
      if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
      expect(events.at(-1)?.event).toBe('message_stop');
      usage = (JSON.parse(events.find((event) => event.event === 'message_delta')?.data ?? '{}') as { usage: Record<string, unknown> }).usage;
    } else {
      usage = ((await response.json()) as { usage: Record<string, unknown> }).usage;
    }
    expect(upstream.requests).toHaveLength(2);
    expect(usage.estimated).toBe(true);
    expect(usage.input_tokens).toBeGreaterThan(2 * ESTIMATED.input);
    expect(usage.output_tokens).toBeGreaterThanOrEqual(ESTIMATED.output + 1);
    const cost = usage.cost as number;
    expect(cost).toBeGreaterThan(ESTIMATED_COST);

    const record = await generationOf(gateway, response.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ status: 'success', usage_estimated: true, usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens } });
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(await spentBy(issued.hash, cost)).toBeCloseTo(cost, 12);
  });

  it('a stream the client leaves before its end: the input is estimated, the output from what was streamed, and charged', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    // Chunks 40 ms apart: the client is gone well before the end, where the vendor would have put its usage.
    const words = Array.from({ length: 30 }, (_unused, index) => chunk({ content: `word${index} ` }));
    upstream.enqueue(reply.events([chunk({ role: 'assistant', content: '' }), ...words, chunk({}, 'stop')], { chunkDelayMs: 40 }));
    const aborter = new AbortController();
    const response = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...LIMITED_REQUEST, stream: true }),
      signal: aborter.signal,
    });
    // The client reads five words, then leaves.
    let seen = '';
    let deltas = 0;
    if (response.body) {
      for await (const event of readSseEvents(response.body)) {
        if (event.event !== 'content_block_delta') continue;
        seen += (JSON.parse(event.data) as { delta: { text: string } }).delta.text;
        deltas += 1;
        if (deltas === 5) break;
      }
    }
    aborter.abort();
    const record = await waitForGeneration(gateway, response.headers.get('x-generation-id') ?? '');
    // What the gateway streamed before it heard the client leave: at least what the client read, at most every word.
    const output = record.usage.output_tokens as number;
    expect(output).toBeGreaterThanOrEqual(Math.ceil(seen.length / 4));
    expect(output).toBeLessThanOrEqual(Math.ceil(words.length * 'word10 '.length) / 4);
    const cost = limitedCost(ESTIMATED.input, output);
    expect(record).toMatchObject({ status: 'cancelled', usage_estimated: true, usage: { input_tokens: ESTIMATED.input } });
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(await spentBy(issued.hash, cost)).toBeCloseTo(cost, 12);
  });
});
