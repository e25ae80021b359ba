/**
 * Anthropic's per-message effort (a `role: "system"` message whose `output_config` sets an effort from its
 * position on) sent by the real Anthropic SDK 1.14 (`client.beta.messages.create`, JSON and stream) to
 * translated vendors: the answer is generated after every message, so the vendor gets the effort of the last
 * system message that sets one, over the top-level `output_config.effort`, mapped as a top-level effort would
 * be; an effort-only message (empty content) adds nothing to the vendor's conversation, and any other
 * property of its `output_config` is the spec's 400 naming it. `count_tokens` accepts what `/messages` does.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeGemini, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

interface Vendor {
  slug: string;
  upstream: () => FakeUpstream;
  /** The effort the vendor received, in its own terms. */
  effort: (body: Item) => unknown;
  /** The vendor's form of the effort `low` and `high`. */
  low: unknown;
  high: unknown;
  /** The vendor's conversation, to check an effort-only message added nothing. */
  turns: (body: Item) => unknown[];
}

let chat: FakeUpstream;
let responses: FakeUpstream;
let gemini: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

const VENDORS: Vendor[] = [
  { slug: 'effort/chat', upstream: () => chat, effort: (body) => body.reasoning_effort, low: 'low', high: 'high', turns: (body) => body.messages },
  { slug: 'effort/responses', upstream: () => responses, effort: (body) => body.reasoning?.effort, low: 'low', high: 'high', turns: (body) => body.input },
  // gemini-2.5-pro's thinking budgets for the efforts: 60% of max_tokens 256 for high; 10% for low, raised to the least 2.5 Pro takes.
  { slug: 'effort/gemini', upstream: () => gemini, effort: (body) => body.generationConfig?.thinkingConfig, low: { thinkingBudget: 128 }, high: { thinkingBudget: 153 }, turns: (body) => body.contents },
];

beforeAll(async () => {
  chat = await startFakeOpenAiChat({ whenEmpty: reply.fixture('openai-text') });
  responses = await startFakeOpenAiResponses({ whenEmpty: reply.fixture('openai-phase.1') });
  gemini = await startFakeGemini({ whenEmpty: reply.fixture('google-text') });
  const catalogYaml = [
    'providers:',
    '  ollama: { enabled: false }',
    `  openai: { family: openai-chat, base_url: "${chat.baseURL}", api_key: "sk-openai-msg-effort-0001" }`,
    `  oresp: { family: openai-responses, base_url: "${responses.baseURL}", api_key: "sk-oresp-msg-effort-0001" }`,
    `  google: { base_url: "${gemini.baseURL}", api_key: "gemini-msg-effort-0001" }`,
    'models:',
    ...[
      ['effort/chat', 'openai', 'o4-mini'],
      ['effort/responses', 'oresp', 'o4-mini'],
      ['effort/gemini', 'google', 'gemini-2.5-pro'],
    ].flatMap(([slug, provider, model]) => [
      `  ${slug}:`,
      '    capabilities: { tools: true, thinking: true }',
      '    endpoints:',
      `      - { provider: ${provider}, model: ${model}, pricing: { input: 1, output: 4 } }`,
    ]),
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0, timeout: 20_000 });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), responses?.close(), gemini?.close()]);
});

const user = (text: string) => ({ role: 'user' as const, content: text });
const effortOnly = (effort: 'low' | 'high') => ({ role: 'system' as const, content: [], output_config: { effort } });

type Params = Record<string, unknown>;
/** Name, request, the effort the vendor must get, and how many turns its conversation has (none from an effort-only message). */
const CASES: Array<[string, Params, 'low' | 'high', number]> = [
  ['top-level high, a system message low', { output_config: { effort: 'high' }, messages: [user('Hi'), effortOnly('low'), user('Go')] }, 'low', 2],
  ['an earlier system message overridden by a later one', { messages: [user('Hi'), effortOnly('low'), { role: 'assistant', content: 'Hello' }, { role: 'system', content: 'Be brief.', output_config: { effort: 'high' } }, user('Go')] }, 'high', 4],
  ['a system message with an empty output_config, top-level low', { output_config: { effort: 'low' }, messages: [user('Hi'), { role: 'system', content: 'Be brief.', output_config: {} }, user('Go')] }, 'low', 3],
];

async function send(params: Params, model: string, stream: boolean): Promise<void> {
  const body = { model, max_tokens: 256, ...params } as never;
  if (stream) await client.beta.messages.stream(body).finalMessage();
  else await client.beta.messages.create(body);
}

describe.each(VENDORS)('per-message effort on $slug', (vendor) => {
  it.each(CASES.flatMap(([name, params, expected, turns]) => [false, true].map((stream) => [name, stream, params, expected, turns] as const)))(
    '%s (stream %s)',
    async (_name, stream, params, expected, turns) => {
      const upstream = vendor.upstream();
      const before = upstream.requests.length;
      await send(params, vendor.slug, stream);
      const sent = upstream.requests[before]?.body as Item;
      expect(vendor.effort(sent)).toEqual(expected === 'low' ? vendor.low : vendor.high);
      // An effort-only message adds no message or part: no empty turn, no empty framed instruction.
      const conversation = vendor.turns(sent);
      expect(conversation).toHaveLength(turns);
      expect(JSON.stringify(conversation)).not.toMatch(/"(content|parts)":\[\]|<system-instruction>\\n\\n/);
    },
  );

  it('counts tokens of a request with a per-message effort, as /messages accepts it', async () => {
    const counted = await client.beta.messages.countTokens({ model: vendor.slug, output_config: { effort: 'high' }, messages: [user('Hi'), effortOnly('low'), user('Go')] } as never);
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it('answers 400 naming a system message output_config property other than effort', async () => {
    const upstream = vendor.upstream();
    const before = upstream.requests.length;
    const params = { messages: [user('Hi'), { role: 'system', content: [], output_config: { effort: 'low', task_budget: { type: 'tokens', total: 1000 } } }, user('Go')] };
    const error = await send(params, vendor.slug, false).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('messages[1].output_config.task_budget is not supported');
    expect(upstream.requests.length).toBe(before);
  });
});
