/**
 * A refusal with `fallbacks`, as the client sees it over HTTP: the answer marks the hop with Anthropic's
 * `fallback` block (read by the real Anthropic SDK), a next turn passing that block back reaches an Anthropic
 * upstream as it is and a translated vendor without it, and Anthropic's own forms of `fallbacks` (`"default"`,
 * per-entry overrides) are a 400 naming them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { micro, startRefusalGateway, type RefusalGateway } from '#test/integration/routing/refusal-support.ts';
import { anthropicClient, errorMessage, messageBody, modelYaml, postMessage, resetFakes } from './routing-support.ts';

// `test/main` refuses on Alpha ($1/$2 per million tokens), `test/backup` answers on Gamma ($3/$4), and
// `test/translated` is an OpenAI Chat model.
let setup: RefusalGateway;
let alpha: FakeUpstream;
let gamma: FakeUpstream;
let openai: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAiChat();
  setup = await startRefusalGateway(
    {},
    {
      providers: [`  openai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-openai-shared-0001" }`],
      models: [modelYaml('test/translated', [{ provider: 'openai', model: 'gpt-4.1-nano', price: [1, 2] }])],
    },
  );
  ({ refusing: alpha, serving: gamma, gateway } = setup);
});

afterAll(async () => {
  await setup?.close();
  await openai?.close();
});

beforeEach(() => resetFakes(alpha, gamma, openai));

const FALLBACK_TO_BACKUP = {
  type: 'fallback',
  from: { model: 'test/main' },
  to: { model: 'test/backup' },
  trigger: { type: 'refusal', category: 'cyber' },
};

describe('a refusal that moves to the next model (JSON)', () => {
  it('marks the hop with a fallback block before the next model content, read by the Anthropic SDK', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.json'));
    gamma.enqueue(reply.fixture('anthropic-text.json'));
    const client = anthropicClient(gateway);
    const message = await client.beta.messages.create({
      model: 'test/main',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there' }],
      fallbacks: [{ model: 'test/backup' }],
    });

    expect(message.model).toBe('test/backup');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content[0]).toEqual(FALLBACK_TO_BACKUP);
    expect(message.content.slice(1).map((block) => block.type)).toEqual(['text']);
    expect(alpha.requests).toHaveLength(1);
    expect(gamma.requests).toHaveLength(1);
  });

  it('a refusal returned as the answer (no later model answered) has no fallback block', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.json'));
    gamma.enqueue(reply.error(500));
    const call = await postMessage(gateway, messageBody('test/main', { fallbacks: [{ model: 'test/backup' }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('refusal');
    expect((call.body.content as { type: string }[]).map((block) => block.type)).not.toContain('fallback');
  });
});

describe('a refusal that moves to the next model (stream)', () => {
  const request = (fallbacks: { model: string }[]) => ({
    model: 'test/main',
    max_tokens: 64,
    messages: [{ role: 'user' as const, content: 'Hello there' }],
    fallbacks,
  });

  it("Anthropic passthrough: the SDK's finalMessage has the fallback block, then the next model's text and usage", async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const client = anthropicClient(gateway);
    const stream = client.beta.messages.stream(request([{ model: 'test/backup' }]));
    const message = await stream.finalMessage();

    expect(message.content[0]).toEqual(FALLBACK_TO_BACKUP);
    expect(message.content.slice(1).map((block) => block.type)).toEqual(['text']);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.stop_details ?? null).toBeNull();
    expect(alpha.requests).toHaveLength(1);
    expect(gamma.requests).toHaveLength(1);
    // The recorded refusal came before any output (no block started) in `cyber`, which Anthropic does not bill:
    // its 18 in, 5 out are an iteration and on the record, at no cost; the serving call's 12 in, 30 out at $3/$4
    // per million are the cost. The top-level counts are the serving call's, the record's every call's.
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 30 });
    expect(message.usage.iterations?.map((entry) => `${entry.type}:${(entry as { model?: string }).model}`)).toEqual(['message:test/main', 'fallback_message:test/backup']);
    const record = await generationOf(gateway, stream.request_id ?? '');
    expect(record).toMatchObject({ model: 'test/backup', status: 'success', usage: { input_tokens: 30, output_tokens: 35 } });
    expect(record.cost).toBeCloseTo(micro(12, 3) + micro(30, 4), 12);

    // The next turn passes the content back, fallback block included, to a translated vendor.
    openai.enqueue(reply.fixture('openai-text'));
    const next = await postMessage(gateway, {
      model: 'test/translated',
      max_tokens: 64,
      messages: [...request([]).messages, { role: 'assistant', content: message.content }, { role: 'user', content: 'Go on' }],
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it("finalMessage's model is the serving model where Anthropic's stream names it: the beta SDK reads the block's `to`", async () => {
    // Anthropic's own fallback stream (anthropic-fallback.chunks.txt) announces the refused model in
    // message_start and names the serving model only in the fallback block's `to` (and usage.iterations, its
    // billing of its own hops): the gateway's spliced stream does the same with its slugs.
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const client = anthropicClient(gateway);
    const beta = await client.beta.messages.stream(request([{ model: 'test/backup' }])).finalMessage();
    expect(beta.model).toBe('test/backup');

    // The non-beta SDK keeps message_start's model, as it does for Anthropic's own stream.
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const plain = await client.messages.stream(request([{ model: 'test/backup' }]) as never).finalMessage();
    expect(plain.model).toBe('test/main');
    expect(plain.content.map((block) => block.type)).toEqual(['fallback', 'text']);
  });

  it('a translated vendor whose content filter stops the stream moves on; its partial text stays before the block', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id: 'chatcmpl-filtered',
      object: 'chat.completion.chunk',
      created: 1770933883,
      model: 'gpt-4.1-nano',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    openai.enqueue(
      reply.events([
        chunk({ role: 'assistant', content: 'Partial ' }, null),
        chunk({}, 'content_filter'),
        { id: 'chatcmpl-filtered', object: 'chat.completion.chunk', created: 1770933883, model: 'gpt-4.1-nano', choices: [], usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } },
      ]),
    );
    gamma.enqueue(reply.fixture('anthropic-text.chunks.txt'));
    const client = anthropicClient(gateway);
    const message = await client.beta.messages.stream({ ...request([{ model: 'test/backup' }]), model: 'test/translated' }).finalMessage();

    expect(message.content.map((block) => block.type)).toEqual(['text', 'fallback', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Partial ' });
    expect(message.content[1]).toEqual({ ...FALLBACK_TO_BACKUP, from: { model: 'test/translated' }, trigger: { type: 'refusal', category: null } });
    expect(message.stop_reason).toBe('end_turn');
  });

  it('with no later model answering, the refusal stream is the answer', async () => {
    alpha.enqueue(reply.fixture('anthropic-refusal.chunks.txt'));
    gamma.enqueue(reply.error(500));
    const client = anthropicClient(gateway);
    const message = await client.beta.messages.stream(request([{ model: 'test/backup' }])).finalMessage();

    expect(message.stop_reason).toBe('refusal');
    expect(message.content).toEqual([]);
    expect(gamma.requests).toHaveLength(1);
  });
});

describe('a fallback block passed back in a later turn', () => {
  const history = (model: string) =>
    messageBody(model, {
      messages: [
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: [FALLBACK_TO_BACKUP, { type: 'text', text: 'Hi! How can I help?' }] },
        { role: 'user', content: 'Tell me more' },
      ],
    });

  it('reaches an Anthropic upstream as it is', async () => {
    gamma.enqueue(reply.fixture('anthropic-text.json'));
    const call = await postMessage(gateway, history('test/backup'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = gamma.requests[0]?.body as { messages: { content: unknown }[] };
    expect(sent.messages[1]?.content).toEqual([FALLBACK_TO_BACKUP, { type: 'text', text: 'Hi! How can I help?' }]);
  });

  it('is left out for a translated vendor, which is not refused the turn', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, history('test/translated'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = openai.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent.messages[1])).not.toContain('fallback');
    expect(JSON.stringify(sent.messages[1])).toContain('Hi! How can I help?');
  });
});

describe("Anthropic's own forms of fallbacks", () => {
  it('`fallbacks: "default"` is a 400 naming the field, before any upstream is called', async () => {
    const call = await postMessage(gateway, messageBody('test/main', { fallbacks: 'default' }));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(errorMessage(call)).toBe('Invalid request parameters: fallbacks: must be array or null');
    expect(alpha.requests).toHaveLength(0);
  });

  it.each([
    ['max_tokens', { max_tokens: 32 }],
    ['output_config', { output_config: { effort: 'low' } }],
  ])('an entry with %s is a 400 naming it', async (field, extra) => {
    const call = await postMessage(gateway, messageBody('test/main', { fallbacks: [{ model: 'test/backup', ...extra }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe(`Invalid request parameters: fallbacks[0].${field}: is not a known property here (remove it)`);
    expect(alpha.requests).toHaveLength(0);
  });
});
