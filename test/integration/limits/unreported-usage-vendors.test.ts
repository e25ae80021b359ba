/**
 * Gemini and OpenAI Responses answers whose counts are missing are estimated, marked and charged as an
 * OpenAI Chat vendor's are (unreported-usage.test.ts): Gemini without `usageMetadata`, or with one that leaves
 * out `promptTokenCount` or `candidatesTokenCount` (the AI SDK reads a missing count as 0), and Responses with
 * `usage: null`, in JSON answers and streams alike. A count the vendor reported stands. Before, a Gemini
 * `usageMetadata` without `candidatesTokenCount` recorded and charged the answer's output as 0 tokens, and one
 * without `promptTokenCount` its input, unmarked.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, startFakeOpenAiResponses, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { issueLimitedKey, LIMITED_PRICES, LIMITED_REQUEST, limitedCost, listedKey } from './limits-support.ts';
import { responsesProviderYaml } from '#test/integration/routing/responses-gateway-support.ts';

const ANSWER = 'Hello! How can I help?';
// "Hello there" is 11 characters: 3 tokens at 4 characters a token; the answer's 22 characters are 6.
const ESTIMATED = { input: 3, output: 6 };

/** A Gemini answer with `usageMetadata` as given (absent when undefined). */
function geminiJson(usageMetadata: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    candidates: [{ content: { parts: [{ text: ANSWER }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    ...(usageMetadata ? { usageMetadata } : {}),
    modelVersion: 'gemini-test',
    responseId: 'resp-gemini-nousage',
  };
}

/** A Gemini stream in two chunks, the last carrying `usageMetadata` as given (absent when undefined). */
function geminiStream(usageMetadata: Record<string, unknown> | undefined): unknown[] {
  const part = (text: string, last: boolean) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    ...(last && usageMetadata ? { usageMetadata } : {}),
    modelVersion: 'gemini-test',
    responseId: 'resp-gemini-nousage',
  });
  return [part('Hello! How ', false), part('can I help?', true)];
}

const MESSAGE_ID = 'msg_nousage0001';
const outputItem = (status: string, text: string) => ({ id: MESSAGE_ID, type: 'message', status, content: status === 'completed' ? [{ type: 'output_text', annotations: [], logprobs: [], text }] : [], role: 'assistant' });
const responseObject = (usage: unknown) => ({ id: 'resp_nousage', object: 'response', created_at: 1_772_062_745, status: 'completed', model: 'gpt-test', output: [outputItem('completed', ANSWER)], usage });

/** A Responses stream whose `response.completed` carries `usage` as given. */
function responsesStream(usage: unknown): unknown[] {
  const textPart = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
  return [
    { type: 'response.created', response: { ...responseObject(null), status: 'in_progress', output: [] }, sequence_number: 0 },
    { type: 'response.output_item.added', item: outputItem('in_progress', ''), output_index: 0, sequence_number: 1 },
    { type: 'response.content_part.added', content_index: 0, item_id: MESSAGE_ID, output_index: 0, part: textPart(''), sequence_number: 2 },
    { type: 'response.output_text.delta', content_index: 0, delta: 'Hello! How ', item_id: MESSAGE_ID, output_index: 0, sequence_number: 3 },
    { type: 'response.output_text.delta', content_index: 0, delta: 'can I help?', item_id: MESSAGE_ID, output_index: 0, sequence_number: 4 },
    { type: 'response.output_text.done', content_index: 0, item_id: MESSAGE_ID, logprobs: [], output_index: 0, text: ANSWER, sequence_number: 5 },
    { type: 'response.content_part.done', content_index: 0, item_id: MESSAGE_ID, output_index: 0, part: textPart(ANSWER), sequence_number: 6 },
    { type: 'response.output_item.done', item: outputItem('completed', ANSWER), output_index: 0, sequence_number: 7 },
    { type: 'response.completed', response: responseObject(usage), sequence_number: 8 },
  ];
}

let gemini: FakeUpstream;
let responses: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [gemini, responses] = await Promise.all([startFakeGemini(), startFakeOpenAiResponses()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  up-gemini: { family: google, display_name: "Gemini Test", base_url: "${gemini.baseURL}", api_key: "gemini-nousage-key-0001" }`,
        responsesProviderYaml(responses, 'sk-responses-nousage-0001'),
      ],
      [
        modelYaml('test/gemini', [{ provider: 'up-gemini', model: 'gemini-test', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }]),
        modelYaml('test/responses', [{ provider: 'up-responses', model: 'gpt-test', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }]),
      ],
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
}, 120_000);
beforeEach(() => {
  gemini.clear();
  responses.clear();
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([gemini?.close(), responses?.close()]);
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

/** Sends `LIMITED_REQUEST` on `model` (streaming or not) and gives the answer's text, usage and generation id. */
async function ask(model: string, key: string, stream: boolean): Promise<{ text: string; usage: Record<string, unknown>; id: string }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...LIMITED_REQUEST, model, ...(stream ? { stream: true } : {}) }),
  });
  const id = response.headers.get('x-generation-id') ?? '';
  if (!stream) {
    const body = (await response.json()) as { content?: { text: string }[]; usage: Record<string, unknown> };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return { text: body.content?.map((block) => block.text).join('') ?? '', usage: body.usage, id };
  }
  expect(response.status).toBe(200);
  const events: RawSseEvent[] = [];
  if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
  expect(events.at(-1)?.event, JSON.stringify(events.at(-1))).toBe('message_stop');
  const text = events.filter((event) => event.event === 'content_block_delta').map((event) => (JSON.parse(event.data) as { delta: { text: string } }).delta.text);
  const delta = JSON.parse(events.find((event) => event.event === 'message_delta')?.data ?? '{}') as { usage: Record<string, unknown> };
  return { text: text.join(''), usage: delta.usage, id };
}

interface Case {
  name: string;
  model: string;
  upstream: () => FakeUpstream;
  reply: (stream: boolean) => FakeReply;
  expected: { input: number; output: number };
}

const CASES: readonly Case[] = [
  {
    name: 'Gemini without usageMetadata',
    model: 'test/gemini',
    upstream: () => gemini,
    reply: (stream) => (stream ? reply.events(geminiStream(undefined)) : reply.json(geminiJson(undefined))),
    expected: ESTIMATED,
  },
  {
    name: 'Gemini whose usageMetadata has no candidatesTokenCount',
    model: 'test/gemini',
    upstream: () => gemini,
    reply: (stream) => (stream ? reply.events(geminiStream({ promptTokenCount: 9, totalTokenCount: 9 })) : reply.json(geminiJson({ promptTokenCount: 9, totalTokenCount: 9 }))),
    expected: { input: 9, output: ESTIMATED.output },
  },
  {
    name: 'Gemini whose usageMetadata has no promptTokenCount',
    model: 'test/gemini',
    upstream: () => gemini,
    reply: (stream) => (stream ? reply.events(geminiStream({ candidatesTokenCount: 7, totalTokenCount: 7 })) : reply.json(geminiJson({ candidatesTokenCount: 7, totalTokenCount: 7 }))),
    expected: { input: ESTIMATED.input, output: 7 },
  },
  {
    name: 'Responses with usage: null',
    model: 'test/responses',
    upstream: () => responses,
    reply: (stream) => (stream ? reply.events(responsesStream(null)) : reply.json(responseObject(null))),
    expected: ESTIMATED,
  },
];

describe.each(CASES)('$name', (testCase) => {
  it.each([false, true])('stream: %s: estimated in usage, recorded as estimated, charged to the key', async (stream) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    testCase.upstream().enqueue(testCase.reply(stream));
    const answer = await ask(testCase.model, issued.key, stream);
    expect(answer.text).toBe(ANSWER);
    const cost = limitedCost(testCase.expected.input, testCase.expected.output);
    expect(answer.usage).toMatchObject({ input_tokens: testCase.expected.input, output_tokens: testCase.expected.output, estimated: true });
    expect(answer.usage.cost).toBeCloseTo(cost, 12);

    const record = await generationOf(gateway, answer.id);
    expect(record).toMatchObject({ status: 'success', usage_estimated: true, usage: { input_tokens: testCase.expected.input, output_tokens: testCase.expected.output } });
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(await spentBy(issued.hash, cost)).toBeCloseTo(cost, 12);
  });
});

describe('reported counts', () => {
  it.each([false, true])('Gemini with every count (stream: %s): taken as reported, not marked estimated', async (stream) => {
    const usageMetadata = { promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 };
    gemini.enqueue(stream ? reply.events(geminiStream(usageMetadata)) : reply.json(geminiJson(usageMetadata)));
    const issued = await issueLimitedKey(gateway, {});
    const answer = await ask('test/gemini', issued.key, stream);
    expect(answer.usage).toMatchObject({ input_tokens: 9, output_tokens: 7 });
    expect(answer.usage.estimated).toBeUndefined();
  });

  // A translated stream's message_start says input_tokens 0 (the vendor counts only at the end); the
  // Anthropic SDK (and Claude Code, whose merge is the same) takes the input from message_delta, non-zero.
  it('the Anthropic SDK reads the vendor input from message_delta after a translated stream', async () => {
    const usageMetadata = { promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 };
    gemini.enqueue(reply.events(geminiStream(usageMetadata)));
    const stream = anthropicClient(gateway).messages.stream({ ...LIMITED_REQUEST, model: 'test/gemini', messages: [...LIMITED_REQUEST.messages] });
    let started: number | undefined;
    for await (const event of stream) if (event.type === 'message_start') started = event.message.usage.input_tokens;
    expect(started).toBe(0);
    const message = await stream.finalMessage();
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 7 });
  });
});
