/**
 * A stream whose upstream fails part-way (an in-stream `error` event, or the connection cut) after it started
 * answering is charged what it is known to have cost, as a stream the client leaves is: the upstream read the
 * prompt and bills it. An Anthropic-format upstream's `message_start` counts (input, cache reads and writes)
 * are priced as reported; a translated vendor (OpenAI Chat and Responses, Gemini, Bedrock), which reports its
 * counts only at the end, has its input estimated as `count_tokens` does and its output from the characters
 * streamed to the client, marked `usage_estimated`. Before, every one of them was recorded and settled at $0.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { ReplyDelivery } from '#test/helpers/fake-upstreams/fake-reply.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { issueLimitedKey, LIMITED_PRICES, LIMITED_REQUEST, listedKey } from './limits-support.ts';

/** USD per million cache-read tokens of every test model. */
const CACHE_READ_PRICE = 100;
// "Hello there" is 11 characters: 3 tokens at 4 characters a token.
const ESTIMATED_INPUT = 3;
const REPORTED = { input: 40, cacheRead: 500, output: 1 };

const MESSAGE_START = {
  type: 'message_start',
  message: {
    id: 'msg_01FailsPartWay',
    type: 'message',
    role: 'assistant',
    model: 'up-anthropic',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: REPORTED.input, cache_creation_input_tokens: 0, cache_read_input_tokens: REPORTED.cacheRead, output_tokens: REPORTED.output },
  },
};
const delta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
/** An Anthropic stream's first five events; the fault comes after them. */
const ANTHROPIC_EVENTS = [MESSAGE_START, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, delta('Hello'), delta('! How can '), delta('I help you today'), delta(' with it?'), { type: 'content_block_stop', index: 0 }];

interface Vendor {
  slug: string;
  start: () => Promise<FakeUpstream>;
  yaml: (upstream: FakeUpstream) => string;
  /** The reply: a recorded stream (or inline events) with the fault given. */
  failing: (fault: ReplyDelivery) => FakeReply;
  /** After how many of its events the fault comes: past the first text. */
  afterEvents: number;
}

const VENDORS: readonly Vendor[] = [
  { slug: 'anthropic', start: () => startFakeAnthropic(), yaml: (upstream) => `family: anthropic, base_url: "${upstream.url}", api_key: "sk-anthropic-fails-0001"`, failing: (fault) => reply.events(ANTHROPIC_EVENTS, fault), afterEvents: 5 },
  { slug: 'openai-chat', start: () => startFakeOpenAiChat(), yaml: (upstream) => `family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-chat-fails-0001"`, failing: (fault) => reply.fixture('openai-text.chunks.txt', fault), afterEvents: 4 },
  { slug: 'openai-responses', start: () => startFakeOpenAiResponses(), yaml: (upstream) => `family: openai-responses, base_url: "${upstream.baseURL}", api_key: "sk-openai-responses-fails-0001"`, failing: (fault) => reply.fixture('openai-phase.1.chunks.txt', fault), afterEvents: 6 },
  { slug: 'google', start: () => startFakeGemini(), yaml: (upstream) => `family: google, base_url: "${upstream.baseURL}", api_key: "sk-google-fails-0001"`, failing: (fault) => reply.fixture('google-text.chunks.txt', fault), afterEvents: 2 },
  { slug: 'bedrock', start: () => startFakeBedrock(), yaml: (upstream) => `family: bedrock, base_url: "${upstream.url}", aws: { region: us-east-1, access_key_id: "AKIAFAILSTEST0000001", secret_access_key: "fails/secret/access/key/00000000000000001" }`, failing: (fault) => reply.fixture('amazon-bedrock-text.chunks.txt', fault), afterEvents: 4 },
];

const upstreams = new Map<string, FakeUpstream>();
let gateway: TestGateway;

beforeAll(async () => {
  for (const vendor of VENDORS) upstreams.set(vendor.slug, await vendor.start());
  const pricing = `pricing: { input: ${LIMITED_PRICES.input}, output: ${LIMITED_PRICES.output}, cache_read: ${CACHE_READ_PRICE} }`;
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      VENDORS.map((vendor) => `  up-${vendor.slug}: { ${vendor.yaml(upstreams.get(vendor.slug) as FakeUpstream)}, display_name: "${vendor.slug}" }`),
      VENDORS.map((vendor) =>
        [
          `  test/${vendor.slug}:`,
          `    name: test/${vendor.slug}`,
          '    context_length: 200000',
          '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
          `    endpoints: [{ provider: up-${vendor.slug}, model: up-${vendor.slug}, ${pricing} }]`,
        ].join('\n'),
      ),
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
}, 120_000);
beforeEach(() => {
  for (const upstream of upstreams.values()) upstream.clear();
});
afterAll(async () => {
  await gateway?.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

/** Streams `LIMITED_REQUEST` on `model` with `key`, reading every event to the end. */
async function streamModel(model: string, key: string): Promise<{ status: number; id: string; events: RawSseEvent[] }> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...LIMITED_REQUEST, model, stream: true }),
  });
  const events: RawSseEvent[] = [];
  if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
  return { status: response.status, id: response.headers.get('x-generation-id') ?? '', events };
}

/** The characters of text, thinking and tool input the client was streamed. */
function streamedCharacters(events: readonly RawSseEvent[]): number {
  let characters = 0;
  for (const event of events) {
    if (event.event !== 'content_block_delta') continue;
    const { delta: part } = JSON.parse(event.data) as { delta: { text?: string; thinking?: string; partial_json?: string } };
    characters += (part.text ?? part.thinking ?? part.partial_json ?? '').length;
  }
  return characters;
}

/** The key's spending as `GET /keys` lists it, once it has reached `atLeast` (settling is off the request path). */
async function spentBy(hash: string, atLeast: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const cost = (await listedKey(gateway, hash)).usage.cost as number;
    if (cost >= atLeast - 1e-12 || Date.now() > deadline) return cost;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const FAULTS: ReadonlyArray<[string, (afterEvents: number) => ReplyDelivery]> = [
  ['an in-stream error event', (afterEvents) => ({ streamError: { afterEvents, status: 529 } })],
  ['the connection cut', (afterEvents) => ({ truncate: { afterEvents, mode: 'destroy' } })],
];

describe.each(VENDORS)('a $slug stream that fails part-way', (vendor) => {
  it.each(FAULTS)('%s: the client sees the error; the record and the key are charged what was used', async (_name, fault) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstreams.get(vendor.slug)?.enqueue(vendor.failing(fault(vendor.afterEvents)));
    const call = await streamModel(`test/${vendor.slug}`, issued.key);
    expect(call.status).toBe(200);
    const names = call.events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_delta');
    const characters = streamedCharacters(call.events);
    expect(characters).toBeGreaterThan(0);

    const record = await generationOf(gateway, call.id);
    expect(record.status).toBe('error');
    let expected: { input: number; cacheRead: number; output: number; estimated: boolean };
    if (vendor.slug === 'anthropic') expected = { ...REPORTED, estimated: false };
    else expected = { input: ESTIMATED_INPUT, cacheRead: 0, output: Math.ceil(characters / 4), estimated: true };
    expect(record).toMatchObject({
      usage_estimated: expected.estimated,
      usage: { input_tokens: expected.input, output_tokens: expected.output, cache_read_input_tokens: expected.cacheRead },
    });
    const cost = (expected.input * LIMITED_PRICES.input + expected.cacheRead * CACHE_READ_PRICE + expected.output * LIMITED_PRICES.output) / 1_000_000;
    expect(record.cost).toBeCloseTo(cost, 12);
    expect(await spentBy(issued.hash, cost)).toBeCloseTo(cost, 12);
  });
});
