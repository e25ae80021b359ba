/**
 * A failed tool call's result holding an image (`is_error: true` beside a screenshot, as an agent's failed UI
 * check answers), sent by the real Anthropic SDK to models served on each translated vendor: every vendor
 * gets the image where it takes a tool result's images, with `[The tool reported an error.]` first, since no
 * vendor's tool result carries an error flag beside files through the AI SDK. Before, the AI SDK's
 * `error-text` output left no room for files: the image was dropped with a warning and the model never saw it.
 * A text-only error result keeps the vendor's own error marking (Gemini's `error` key, OpenAI's `{"error"}`).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  bedrockStep,
  geminiStep,
  openAiChatStep,
  reply,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeUpstream,
} from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

const PNG = 'iVBORw0KGgo=';
const USAGE = { input: 40, output: 6 };
const NOTE = '[The tool reported an error.]';
const CHECK = { name: 'check_page', description: 'Opens the page and checks it.', input_schema: { type: 'object' as const, properties: { url: { type: 'string' } }, required: ['url'] } };
const IMAGE: Anthropic.ImageBlockParam = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };

/** The conversation ending in a failed check whose result holds `content`. */
function failedCheck(content: Anthropic.ToolResultBlockParam['content']): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: 'Does the login page render?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_check1', name: 'check_page', input: { url: 'https://example.com/login' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_check1', is_error: true, content }] },
  ];
}
const withImage = failedCheck([{ type: 'text', text: 'Assertion failed: no login button.' }, IMAGE]);
const imageOnly = failedCheck([IMAGE]);

let chat: FakeUpstream;
let responses: FakeUpstream;
let gemini: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  chat = await startFakeOpenAiChat();
  responses = await startFakeOpenAiResponses({ whenEmpty: reply.fixture('openai-phase.1') });
  gemini = await startFakeGemini();
  bedrock = await startFakeBedrock();
  const providers = [
    `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIAERRORRESULTS0001", secret_access_key: "error/results/secret/key/00000000000000001" } }`,
    `  oai: { family: openai-chat, base_url: "${chat.baseURL}", api_key: "sk-oai-error-results-0001" }`,
    `  oai-responses: { family: openai-responses, base_url: "${responses.baseURL}", api_key: "sk-responses-error-results-0001" }`,
    `  gem: { family: google, base_url: "${gemini.baseURL}", api_key: "gem-key-error-results-0001" }`,
    `  house-parts: { family: openai-compatible, display_name: House Parts, base_url: "${chat.baseURL}", api_key: "sk-house-error-results-0001", quirks: { supports_multi_part_tool_content: true } }`,
  ];
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, '    capabilities: { tools: true, vision: true }', `    endpoints: [{ provider: ${provider}, model: ${upstream}, pricing: { input: 1, output: 2 } }]`].join('\n');
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(providers, [
      model('test/gpt', 'oai', 'gpt-4.1-mini'),
      model('test/gpt-responses', 'oai-responses', 'gpt-5-mini'),
      model('test/gemini', 'gem', 'gemini-2.5-flash'),
      model('test/bedrock', 'bedrock', 'anthropic.claude-check-v1:0'),
      model('test/parts', 'house-parts', 'house-model'),
    ]),
  });
});
afterAll(async () => {
  await gateway?.close();
  await chat?.close();
  await responses?.close();
  await gemini?.close();
  await bedrock?.close();
});
beforeEach(() => {
  for (const upstream of [chat, responses, gemini, bedrock]) upstream.clear();
});

/** Sends the conversation through the SDK to `model`; returns the answer's text and the body `upstream` received. */
async function ask(model: string, upstream: FakeUpstream, messages: Anthropic.MessageParam[]): Promise<{ text: string; sent: Record<string, unknown> }> {
  const answer = await anthropicClient(gateway).messages.create({ model, max_tokens: 128, tools: [CHECK], messages });
  const text = answer.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  return { text, sent: upstream.lastRequest().body as Record<string, unknown> };
}

const chatCall = { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_check1', type: 'function', function: { name: 'check_page', arguments: '{"url":"https://example.com/login"}' } }] };
const imageUrl = { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } };

describe('an is_error tool result holding an image, on a translated vendor', () => {
  it('reaches OpenAI Chat as the error text in the tool message, the image in the user message after it', async () => {
    chat.enqueue(openAiChatStep({ text: 'The button is missing.', usage: USAGE }));
    const { text, sent } = await ask('test/gpt', chat, withImage);
    expect(text).toBe('The button is missing.');
    expect((sent.messages as unknown[]).slice(1)).toEqual([
      chatCall,
      { role: 'tool', tool_call_id: 'toolu_check1', content: `${NOTE}\nAssertion failed: no login button.\n[The tool returned an image, attached to the next user message.]` },
      { role: 'user', content: [{ type: 'text', text: 'Attached: what the tool calls above returned as files.' }, imageUrl] },
    ]);
  });

  it('reaches an OpenAI-compatible server that takes content parts as parts of the tool message', async () => {
    chat.enqueue(openAiChatStep({ text: 'The button is missing.', usage: USAGE }));
    const { sent } = await ask('test/parts', chat, withImage);
    expect((sent.messages as unknown[]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_check1',
      content: [{ type: 'text', text: NOTE }, { type: 'text', text: 'Assertion failed: no login button.' }, imageUrl],
    });
  });

  it('reaches OpenAI Responses as the function call output’s text and image', async () => {
    const { sent } = await ask('test/gpt-responses', responses, withImage);
    expect((sent.input as unknown[]).at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'toolu_check1',
      output: [
        { type: 'input_text', text: NOTE },
        { type: 'input_text', text: 'Assertion failed: no login button.' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
      ],
    });
  });

  it('reaches Gemini as one function response saying so, the image beside it', async () => {
    gemini.enqueue(geminiStep({ text: 'The button is missing.', usage: USAGE }));
    const { sent } = await ask('test/gemini', gemini, imageOnly);
    expect((sent.contents as unknown[]).at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'toolu_check1', name: 'check_page', response: { name: 'check_page', content: NOTE } } },
        { inlineData: { mimeType: 'image/png', data: PNG } },
        { text: 'Tool executed successfully and returned this image as a response' },
      ],
    });
  });

  it('reaches Bedrock as the tool result’s text and image blocks', async () => {
    bedrock.enqueue(bedrockStep({ text: 'The button is missing.', usage: USAGE }));
    const { sent } = await ask('test/bedrock', bedrock, withImage);
    expect((sent.messages as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: [
        {
          toolResult: {
            toolUseId: 'toolu_check1',
            content: [{ text: NOTE }, { text: 'Assertion failed: no login button.' }, { image: { format: 'png', source: { bytes: PNG } } }],
          },
        },
      ],
    });
  });

  it('is not reported as dropping anything', async () => {
    chat.enqueue(openAiChatStep({ text: 'The button is missing.', usage: USAGE }));
    await ask('test/gpt', chat, withImage);
    expect(gateway.logs.some((line) => line.includes('is_error tool_result dropped'))).toBe(false);
  });
});

describe('a text-only is_error tool result', () => {
  it('keeps Gemini’s error key', async () => {
    gemini.enqueue(geminiStep({ text: 'Retrying.', usage: USAGE }));
    const { sent } = await ask('test/gemini', gemini, failedCheck('Timed out after 30 s.'));
    expect((sent.contents as unknown[]).at(-1)).toEqual({
      role: 'user',
      parts: [{ functionResponse: { id: 'toolu_check1', name: 'check_page', response: { name: 'check_page', error: 'Timed out after 30 s.' } } }],
    });
  });

  it('keeps OpenAI Chat’s error object', async () => {
    chat.enqueue(openAiChatStep({ text: 'Retrying.', usage: USAGE }));
    const { sent } = await ask('test/gpt', chat, failedCheck([{ type: 'text', text: 'Timed out after 30 s.' }]));
    expect((sent.messages as unknown[]).at(-1)).toEqual({ role: 'tool', tool_call_id: 'toolu_check1', content: '{"error":"Timed out after 30 s."}' });
  });
});
