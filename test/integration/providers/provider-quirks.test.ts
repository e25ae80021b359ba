/**
 * Provider quirks over HTTP, each observed on the wire of a fake OpenAI-compatible server: Mistral's tool-call
 * ids (nine letters and digits, mapped consistently and given back as the client's), `include_usage` (Mistral
 * refuses `stream_options`), `reasoning_field` (Groq streams and takes back reasoning as `reasoning`, DeepSeek
 * as `reasoning_content`, Mistral in neither) and `supports_multi_part_tool_content` (a tool result's image as a
 * content part, or as text with the image in a user message after it), which yields to the model's `vision`: a
 * model that reads no images is sent a note in the image's place, never the image or its base64.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml, postMessage, resetFakes, streamMessage, type StreamCall } from '#test/integration/routing/routing-support.ts';

let fake: FakeUpstream;
let gateway: TestGateway;

/** The model without the `vision` capability: its endpoints read no image. */
function textOnly(model: string): string {
  return model.replace('vision: true', 'vision: false');
}

beforeAll(async () => {
  fake = await startFakeOpenAiChat();
  const at = `base_url: "${fake.baseURL}"`;
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  mistral: { ${at}, api_key: "sk-mistral-quirks-0001" }`,
        `  groq: { ${at}, api_key: "gsk-groq-quirks-0001" }`,
        `  deepseek: { ${at}, api_key: "sk-deepseek-quirks-0001" }`,
        `  house-parts: { family: openai-compatible, display_name: House Parts, ${at}, api_key: "sk-house-quirks-0001", quirks: { supports_multi_part_tool_content: true } }`,
      ],
      [
        modelYaml('test/mistral', [{ provider: 'mistral', model: 'mistral-small-latest', price: [1, 2] }]),
        modelYaml('test/groq', [{ provider: 'groq', model: 'qwen/qwen3-32b', price: [1, 2] }]),
        modelYaml('test/deepseek', [{ provider: 'deepseek', model: 'deepseek-chat', price: [1, 2] }]),
        modelYaml('test/parts', [{ provider: 'house-parts', model: 'house-model', price: [1, 2] }]),
        textOnly(modelYaml('test/deepseek-text', [{ provider: 'deepseek', model: 'deepseek-chat', price: [1, 2] }])),
        textOnly(modelYaml('test/parts-text', [{ provider: 'house-parts', model: 'house-text-model', price: [1, 2] }])),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

beforeEach(() => resetFakes(fake));

interface ChatMessage {
  role: string;
  content?: unknown;
  reasoning?: unknown;
  reasoning_content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
  tool_call_id?: string;
}

const sentMessages = (): ChatMessage[] => (fake.lastRequest().body as { messages: ChatMessage[] }).messages;
const toolUse = (id: string, location: string) => ({ type: 'tool_use', id, name: 'weather', input: { location } });
const toolResult = (id: string, content: unknown) => ({ type: 'tool_result', tool_use_id: id, content });
const WEATHER = { name: 'weather', description: 'Weather in a place', input_schema: { type: 'object', properties: { location: { type: 'string' } } } };

function startedBlocks(call: StreamCall): Array<Record<string, unknown>> {
  return call.events.flatMap((event) => (event.event === 'content_block_start' ? [(JSON.parse(event.data) as { content_block: Record<string, unknown> }).content_block] : []));
}

describe('Mistral: tool_call_id_max_length 9, include_usage false', () => {
  const ANTHROPIC_ID = 'toolu_01XFDUDYJgAACzvnptvVoYEL';
  const OPENAI_ID = 'call_00_9V0vrf86Pc9aelHCJMZqnJBo';
  const MISTRAL_ID = 'gSIMJiOkT';
  const history = {
    model: 'test/mistral',
    max_tokens: 256,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'Weather in Paris, Rome and Oslo?' },
      { role: 'assistant', content: [toolUse(ANTHROPIC_ID, 'Paris'), toolUse(OPENAI_ID, 'Rome'), toolUse(MISTRAL_ID, 'Oslo')] },
      { role: 'user', content: [toolResult(ANTHROPIC_ID, 'Sunny'), toolResult(OPENAI_ID, 'Rainy'), toolResult(MISTRAL_ID, 'Snowy')] },
    ],
  };

  /** The ids Mistral received for the history's three calls, checked to pair each call with its result. */
  function idsMistralReceived(): string[] {
    const messages = sentMessages();
    const calls = messages.find((message) => message.role === 'assistant')?.tool_calls?.map((call) => call.id) ?? [];
    const results = messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id);
    expect(results).toEqual(calls);
    return calls;
  }

  it("sends the history's ids as nine letters and digits, each call and its result alike, Mistral's own unchanged", async () => {
    fake.enqueue(reply.fixture('mistral-tool-call', { vendor: 'mistral' }));
    const call = await postMessage(gateway, history);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const ids = idsMistralReceived();
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe(MISTRAL_ID);
    // Mistral's answer carries its own id, which the client gets as it is.
    const recorded = readFixture('mistral', 'mistral-tool-call') as { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> };
    expect((call.body.content as Array<{ id?: string }>).find((block) => block.id)?.id).toBe(recorded.choices[0]?.message.tool_calls[0]?.id);
  });

  it('maps the same ids the same way on every turn, gives an answer naming one back as the client sent it, and asks no stream_options', async () => {
    fake.enqueue(reply.fixture('mistral-tool-call', { vendor: 'mistral' }));
    await postMessage(gateway, history);
    const [forAnthropicId] = idsMistralReceived();

    const chunks = readChunks('mistral', 'mistral-tool-call') as Array<{ choices: Array<{ delta: { tool_calls?: Array<{ id: string }> } }> }>;
    const echo = chunks.map((chunk) => structuredClone(chunk));
    const calls = echo[1]?.choices[0]?.delta.tool_calls ?? [];
    if (calls[0]) calls[0].id = forAnthropicId ?? '';
    fake.enqueue(reply.events(echo));
    const streamed = await streamMessage(gateway, history);

    expect(streamed.status).toBe(200);
    expect(idsMistralReceived()[0]).toBe(forAnthropicId);
    expect(startedBlocks(streamed)).toContainEqual({ type: 'tool_use', id: ANTHROPIC_ID, name: 'weather', input: {} });
    expect(fake.lastRequest().body).toMatchObject({ stream: true });
    expect(fake.lastRequest().body).not.toHaveProperty('stream_options');
    // Mistral sends usage in its last chunk unasked.
    const delta = streamed.events.find((event) => event.event === 'message_delta');
    expect(JSON.parse(delta?.data ?? '{}')).toMatchObject({ usage: { input_tokens: 124, output_tokens: 22 } });
  });
});

describe('reasoning_field', () => {
  const thinkingTurn = (model: string) => ({
    model,
    max_tokens: 256,
    messages: [
      { role: 'user', content: 'How many r in strawberry?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Count them: three.', signature: 'sig' }, { type: 'text', text: 'Three.' }] },
      { role: 'user', content: 'Sure?' },
    ],
  });

  it('Groq (reasoning): reasoning streamed in `reasoning` is a thinking block, usage is asked for', async () => {
    fake.enqueue(reply.fixture('groq-reasoning.chunks.txt', { vendor: 'groq' }));
    const call = await streamMessage(gateway, { model: 'test/groq', max_tokens: 2048, messages: [{ role: 'user', content: 'How many r in strawberry?' }] });

    expect(call.status).toBe(200);
    expect(startedBlocks(call).map((block) => block.type)).toEqual(['thinking', 'text']);
    const thinking = call.events
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => (JSON.parse(event.data) as { delta: { thinking?: string } }).delta.thinking ?? '')
      .join('');
    const recorded = (readChunks('groq', 'groq-reasoning') as Array<{ choices: Array<{ delta: { reasoning?: string } }> }>).map((chunk) => chunk.choices[0]?.delta.reasoning ?? '').join('');
    expect(recorded.length).toBeGreaterThan(100);
    expect(thinking).toBe(recorded);
    expect(fake.lastRequest().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it.each([
    { vendor: 'Groq', model: 'test/groq', field: 'reasoning', other: 'reasoning_content' },
    { vendor: 'DeepSeek', model: 'test/deepseek', field: 'reasoning_content', other: 'reasoning' },
  ])('$vendor takes the reasoning of an earlier turn back in `$field`, never in `$other`', async ({ model, field, other }) => {
    fake.enqueue(reply.fixture('groq-text', { vendor: 'groq' }));
    const call = await postMessage(gateway, thinkingTurn(model));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const assistant = sentMessages().find((message) => message.role === 'assistant');
    expect(assistant).toMatchObject({ content: 'Three.', [field]: 'Count them: three.' });
    expect(assistant).not.toHaveProperty(other);
  });
});

describe('Mistral: reasoning_field none', () => {
  it('answers the recorded Magistral thinking as a thinking block, and sends it back on the next turn in no field (Mistral refuses reasoning_content)', async () => {
    fake.enqueue(reply.fixture('mistral-reasoning', { vendor: 'mistral' }), reply.fixture('mistral-text', { vendor: 'mistral' }));
    const question = { role: 'user', content: 'What is 2+2?' };
    const first = await postMessage(gateway, { model: 'test/mistral', max_tokens: 256, messages: [question] });

    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const recorded = readFixture('mistral', 'mistral-reasoning') as { choices: Array<{ message: { content: Array<{ thinking?: Array<{ text: string }>; text?: string }> } }> };
    const [thinking, text] = recorded.choices[0]?.message.content ?? [];
    const answer = first.body as { content: Array<Record<string, unknown>>; stop_reason: string; usage: Record<string, unknown> };
    expect(answer.content).toEqual([
      { type: 'thinking', thinking: thinking?.thinking?.[0]?.text, signature: expect.any(String) },
      { type: 'text', text: text?.text },
    ]);
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.usage).toMatchObject({ input_tokens: 10, output_tokens: 46 });

    // The client passes the whole turn back, thinking included, as Anthropic clients do.
    const second = await postMessage(gateway, { model: 'test/mistral', max_tokens: 256, messages: [question, { role: 'assistant', content: answer.content }, { role: 'user', content: 'And 3+3?' }] });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const assistant = sentMessages().find((message) => message.role === 'assistant');
    expect(assistant).toEqual({ role: 'assistant', content: text?.text });
  });
});

describe('supports_multi_part_tool_content', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const withImageResult = (model: string) => ({
    model,
    max_tokens: 256,
    tools: [WEATHER],
    messages: [
      { role: 'user', content: 'Show me the sky in Paris.' },
      { role: 'assistant', content: [toolUse('call_sky', 'Paris')] },
      { role: 'user', content: [toolResult('call_sky', [{ type: 'text', text: 'The sky now:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }])] },
    ],
  });

  it('sends a text and image tool result as content parts where the server takes them', async () => {
    fake.enqueue(reply.fixture('groq-text', { vendor: 'groq' }));
    const call = await postMessage(gateway, withImageResult('test/parts'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(sentMessages().at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_sky',
      content: [
        { type: 'text', text: 'The sky now:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
  });

  it('sends the image in a user message after the tool message where the server takes tool messages as text and the model reads images', async () => {
    fake.enqueue(reply.fixture('groq-text', { vendor: 'groq' }));
    const call = await postMessage(gateway, withImageResult('test/deepseek'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = sentMessages();
    expect(sent.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_sky', content: 'The sky now:\n[The tool returned an image, attached to the next user message.]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attached: what the tool calls above returned as files.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
    expect(sent.at(-3)?.tool_calls?.[0]?.id).toBe('call_sky');
  });

  it.each([
    { server: 'tool messages as text', model: 'test/deepseek-text' },
    { server: 'content parts', model: 'test/parts-text' },
  ])('sends a note, neither the image nor its base64, where the model reads no images (server taking $server)', async ({ model }) => {
    fake.enqueue(reply.fixture('groq-text', { vendor: 'groq' }));
    const call = await postMessage(gateway, withImageResult(model));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = sentMessages();
    expect(sent.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_sky', content: 'The sky now:\n[The tool returned an image (image/png), which this model cannot read.]' });
    expect(JSON.stringify(sent)).not.toContain(PNG.slice(0, 24));
  });

  it('answers a result holding only an image with the note alone where the model reads no images', async () => {
    fake.enqueue(reply.fixture('groq-text', { vendor: 'groq' }));
    const body = withImageResult('test/deepseek-text');
    body.messages[2] = { role: 'user', content: [toolResult('call_sky', [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }])] };
    const call = await postMessage(gateway, body);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(sentMessages().at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_sky', content: '[The tool returned an image (image/png), which this model cannot read.]' });
  });
});
