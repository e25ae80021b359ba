/**
 * System messages inside the conversation, over HTTP, as each vendor receives them on the wire: Anthropic as
 * sent; OpenAI Chat Completions as `system` messages at their position (`developer` for reasoning models);
 * Gemini and Bedrock, which take system text only up front, as framed user-turn text at their position, with
 * a leading system message joining the system instruction. A system message between a tool call and its
 * result reaches OpenAI after the result, where Chat Completions wants it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { frameSystemText } from '#src/providers/ai-sdk/convert-to-ai-sdk-system.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml, postMessage, resetFakes } from './routing-support.ts';

let alpha: FakeUpstream;
let openai: FakeUpstream;
let gemini: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, openai, gemini, bedrock] = await Promise.all([startFakeAnthropic(), startFakeOpenAiChat(), startFakeGemini(), startFakeBedrock()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        anthropicProviderYaml('alpha', alpha),
        `  openai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-openai-shared-0001" }`,
        `  google: { base_url: "${gemini.baseURL}", api_key: "google-shared-0001" }`,
        `  bedrock: { base_url: "${bedrock.url}", api_key: "bedrock-shared-0001" }`,
      ],
      [
        modelYaml('test/anthropic', [{ provider: 'alpha', model: 'up-alpha', price: [1, 2] }]),
        modelYaml('test/gpt-chat', [{ provider: 'openai', model: 'gpt-4.1-nano', price: [1, 2] }]),
        modelYaml('test/gpt-reasoning', [{ provider: 'openai', model: 'gpt-5', price: [1, 2] }]),
        modelYaml('test/gemini', [{ provider: 'google', model: 'gemini-2.5-flash', price: [1, 2] }]),
        modelYaml('test/bedrock', [{ provider: 'bedrock', model: 'amazon.nova-pro-v1:0', price: [1, 2] }]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), openai?.close(), gemini?.close(), bedrock?.close()]);
});

beforeEach(() => resetFakes(alpha, openai, gemini, bedrock));

/** A conversation as Claude Code shapes it: a system turn after the first user turn, another after an answer. */
function conversation(model: string): Record<string, unknown> {
  return {
    model,
    max_tokens: 64,
    system: 'You are terse.',
    messages: [
      { role: 'system', content: 'The project is Switchboard.' },
      { role: 'user', content: 'Hello there' },
      { role: 'system', content: [{ type: 'text', text: 'Environment: linux.', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: 'What now?' },
      { role: 'system', content: 'Answer in French from now on.' },
    ],
  };
}

describe('a system message inside the conversation', () => {
  it('reaches Anthropic as sent', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = conversation('test/anthropic');
    const call = await postMessage(gateway, body);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.lastRequest().body).toEqual({ ...body, model: 'up-alpha' });
  });

  it('reaches OpenAI Chat Completions as a system message at its position', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, conversation('test/gpt-chat'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((openai.lastRequest().body as { messages: unknown[] }).messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'The project is Switchboard.' },
      { role: 'user', content: 'Hello there' },
      { role: 'system', content: 'Environment: linux.' },
      { role: 'assistant', content: 'Hi.' },
      { role: 'user', content: 'What now?' },
      { role: 'system', content: 'Answer in French from now on.' },
    ]);
  });

  it('reaches an OpenAI reasoning model as a developer message at its position', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, conversation('test/gpt-reasoning'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const roles = (openai.lastRequest().body as { messages: Array<{ role: string }> }).messages.map((message) => message.role);
    expect(roles).toEqual(['developer', 'developer', 'user', 'developer', 'assistant', 'user', 'developer']);
  });

  it('reaches Gemini as framed user text at its position, a leading one in the system instruction', async () => {
    gemini.enqueue(reply.fixture('google-text'));
    const call = await postMessage(gateway, conversation('test/gemini'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = gemini.lastRequest().body as { systemInstruction: unknown; contents: unknown[] };
    expect(sent.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }, { text: 'The project is Switchboard.' }] });
    expect(sent.contents).toEqual([
      { role: 'user', parts: [{ text: 'Hello there' }] },
      { role: 'user', parts: [{ text: frameSystemText('Environment: linux.') }] },
      { role: 'model', parts: [{ text: 'Hi.' }] },
      { role: 'user', parts: [{ text: 'What now?' }] },
      { role: 'user', parts: [{ text: frameSystemText('Answer in French from now on.') }] },
    ]);
  });

  it('reaches Bedrock as framed user text at its position, its cache marker a cache point after it', async () => {
    bedrock.enqueue(reply.fixture('amazon-bedrock-text'));
    const call = await postMessage(gateway, conversation('test/bedrock'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = bedrock.lastRequest().body as { system: unknown; messages: unknown[] };
    expect(sent.system).toEqual([{ text: 'You are terse.' }, { text: 'The project is Switchboard.' }]);
    expect(sent.messages).toEqual([
      { role: 'user', content: [{ text: 'Hello there' }, { text: frameSystemText('Environment: linux.') }, { cachePoint: { type: 'default' } }] },
      { role: 'assistant', content: [{ text: 'Hi.' }] },
      { role: 'user', content: [{ text: 'What now?' }, { text: frameSystemText('Answer in French from now on.') }] },
    ]);
  });

  it('between a tool call and its result, reaches OpenAI right after the result', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, {
      model: 'test/gpt-chat',
      max_tokens: 64,
      tools: [{ name: 'read', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Read a.txt' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.txt' } }] },
        { role: 'system', content: 'Files are UTF-8.' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'hello' }] },
      ],
    });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const messages = (openai.lastRequest().body as { messages: Array<{ role: string; content?: unknown }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'system']);
    expect(messages[3]).toEqual({ role: 'system', content: 'Files are UTF-8.' });
  });
});
