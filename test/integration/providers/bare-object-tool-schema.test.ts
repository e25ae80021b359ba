/**
 * A client tool without arguments whose `input_schema` is a bare `{"type": "object"}` (Anthropic accepts it)
 * on OpenAI's Chat Completions and Responses upstreams, which refuse an object schema without `properties`
 * with a 400 (object schema missing properties): the gateway sends `properties: {}`, and the request is
 * served, through the Anthropic SDK over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient } from '#test/integration/routing/routing-support.ts';

let chat: FakeUpstream;
let responses: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [chat, responses] = await Promise.all([startFakeOpenAiChat(), startFakeOpenAiResponses()]);
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, '    name: Bare schema target', '    context_length: 128000', '    capabilities: { tools: true }', '    endpoints:', `      - { provider: ${provider}, model: ${upstream}, pricing: { input: 1, output: 2 } }`].join('\n');
  gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  openai: { base_url: "${responses.baseURL}", api_key: "sk-openai-bare-0001" }`,
      `  openai-chat-test: { family: openai-chat, display_name: OpenAI Chat, base_url: "${chat.baseURL}", api_key: "sk-chat-bare-0001" }`,
      'models:',
      model('openai/gpt-bare', 'openai', 'gpt-5.1'),
      model('test/gpt-chat', 'openai-chat-test', 'gpt-4.1-nano'),
      '',
    ].join('\n'),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), responses?.close()]);
});

const TOOLS = [
  { name: 'list_regions', description: 'Lists the regions.', input_schema: { type: 'object' } },
  { name: 'describe_region', description: 'Describes one region.', input_schema: { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] } },
];

function request(model: string) {
  return { model, max_tokens: 64, tools: TOOLS, messages: [{ role: 'user' as const, content: 'Which regions are there?' }] } as never;
}

describe('a client tool whose input_schema is a bare object', () => {
  it('reaches Chat Completions with properties: {}, and the answer is served', async () => {
    chat.enqueue(openAiChatStep({ calls: [{ name: 'list_regions', input: {} }], usage: { input: 30, output: 6 } }));
    const message = await anthropicClient(gateway).messages.create(request('test/gpt-chat'));
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'list_regions', input: {} })]);
    const tools = (chat.lastRequest().body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
    expect(tools.map((tool) => [tool.function.name, tool.function.parameters])).toEqual([
      ['list_regions', expect.objectContaining({ type: 'object', properties: {} })],
      ['describe_region', expect.objectContaining({ type: 'object', properties: { region: { type: 'string' } }, required: ['region'] })],
    ]);
  });

  it('reaches Responses with properties: {}, and the answer is served', async () => {
    responses.enqueue(reply.fixture('openai-phase.1'));
    const message = await anthropicClient(gateway).messages.create(request('openai/gpt-bare'));
    expect(message.type).toBe('message');
    const tools = (responses.lastRequest().body as { tools: { name: string; parameters: unknown }[] }).tools;
    expect(tools.map((tool) => [tool.name, tool.parameters])).toEqual([
      ['list_regions', expect.objectContaining({ type: 'object', properties: {} })],
      ['describe_region', expect.objectContaining({ type: 'object', properties: { region: { type: 'string' } } })],
    ]);
  });
});
