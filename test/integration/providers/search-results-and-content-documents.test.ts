/**
 * Anthropic's `search_result` blocks (top-level, and inside a `tool_result`: its documented RAG pattern) and
 * documents with a `content` source, sent by the real Anthropic SDK to models served on OpenAI Chat, Gemini
 * and Bedrock: the vendor reads them as text (a search result's title, source and texts; a content document's
 * title, context and texts) with a content document's images as images, a cache marker as a text block's,
 * and the client gets its 200. Before, each was a 400 "not supported", so a RAG client could not fall back
 * from Anthropic. Citations have no counterpart there: dropped with a logged warning.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bedrockStep, geminiStep, openAiChatStep, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

const PNG = 'iVBORw0KGgo=';
const USAGE = { input: 40, output: 6 };
const LOOKUP = { name: 'lookup', description: 'Searches the knowledge base.', input_schema: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] } };

const paris: Anthropic.SearchResultBlockParam = {
  type: 'search_result',
  source: 'https://kb.example.com/paris',
  title: 'Paris',
  content: [
    { type: 'text', text: 'Paris is the capital of France.' },
    { type: 'text', text: 'About 2.1 million people live there.' },
  ],
  citations: { enabled: true },
};
const PARIS_TEXT = 'Search result: Paris\nSource: https://kb.example.com/paris\n\nParis is the capital of France.\n\nAbout 2.1 million people live there.';

const lookupTurn: Anthropic.MessageParam[] = [
  { role: 'user', content: 'How many people live in Paris?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_kb1', name: 'lookup', input: { query: 'Paris population' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_kb1', content: [paris] }] },
];

const atlas: Anthropic.DocumentBlockParam = {
  type: 'document',
  title: 'Atlas',
  context: 'A school atlas, 2024 edition',
  source: { type: 'content', content: [{ type: 'text', text: 'Chapter 1: France.' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: 'Chapter 2: Spain.' }] },
  citations: { enabled: true },
};

let openai: FakeUpstream;
let gemini: FakeUpstream;
let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAiChat();
  gemini = await startFakeGemini();
  bedrock = await startFakeBedrock();
  const providers = [
    `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIASEARCHRESULTS001", secret_access_key: "search/results/secret/key/0000000000000001" } }`,
    `  oai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-oai-search-results-0001" }`,
    `  gem: { family: google, base_url: "${gemini.baseURL}", api_key: "gem-key-search-results-0001" }`,
  ];
  const model = (slug: string, provider: string, upstream: string) =>
    [`  ${slug}:`, '    capabilities: { tools: true, vision: true }', `    endpoints: [{ provider: ${provider}, model: ${upstream}, pricing: { input: 1, output: 2 } }]`].join('\n');
  const textOnly = ['  test/text-only:', '    capabilities: { tools: true }', '    endpoints: [{ provider: oai, model: gpt-text, pricing: { input: 1, output: 2 } }]'].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, [model('test/gpt', 'oai', 'gpt-4.1-mini'), model('test/gemini', 'gem', 'gemini-2.5-flash'), model('test/bedrock', 'bedrock', 'anthropic.claude-kb-v1:0'), textOnly]) });
});
afterAll(async () => {
  await gateway?.close();
  await openai?.close();
  await gemini?.close();
  await bedrock?.close();
});
beforeEach(() => {
  openai.clear();
  gemini.clear();
  bedrock.clear();
});

type Vendor = 'openai' | 'gemini';

/** Sends `messages` through the SDK to the vendor's model; returns the answer's text and what the vendor received. */
async function ask(vendor: Vendor, messages: Anthropic.MessageParam[], stream = false): Promise<{ text: string; sent: Record<string, unknown> }> {
  const upstream = vendor === 'openai' ? openai : gemini;
  upstream.enqueue(vendor === 'openai' ? openAiChatStep({ text: 'About 2.1 million.', usage: USAGE }) : geminiStep({ text: 'About 2.1 million.', usage: USAGE }));
  const client = anthropicClient(gateway);
  const body = { model: vendor === 'openai' ? 'test/gpt' : 'test/gemini', max_tokens: 128, tools: [LOOKUP], messages };
  const answer = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
  const text = answer.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  return { text, sent: upstream.lastRequest().body as Record<string, unknown> };
}

const openAiLookupTurn = [
  { role: 'user', content: 'How many people live in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_kb1', type: 'function', function: { name: 'lookup', arguments: '{"query":"Paris population"}' } }] },
];

describe('a search_result block on a translated vendor', () => {
  it.each([false, true])('reaches OpenAI Chat as its title, source and texts (stream: %s)', async (stream) => {
    const { text, sent } = await ask('openai', [{ role: 'user', content: [paris, { type: 'text', text: 'How many people live in Paris?' }] }], stream);
    expect(text).toBe('About 2.1 million.');
    expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: PARIS_TEXT }, { type: 'text', text: 'How many people live in Paris?' }] }]);
  });

  it('reaches Gemini as a text part of the user turn', async () => {
    const { text, sent } = await ask('gemini', [{ role: 'user', content: [paris, { type: 'text', text: 'How many people live in Paris?' }] }]);
    expect(text).toBe('About 2.1 million.');
    expect(sent.contents).toEqual([{ role: 'user', parts: [{ text: PARIS_TEXT }, { text: 'How many people live in Paris?' }] }]);
  });

  it('inside a tool result reaches OpenAI Chat as the tool message text', async () => {
    const { text, sent } = await ask('openai', lookupTurn);
    expect(text).toBe('About 2.1 million.');
    expect(sent.messages).toEqual([...openAiLookupTurn, { role: 'tool', tool_call_id: 'toolu_kb1', content: PARIS_TEXT }]);
  });

  it('inside a tool result reaches Gemini as the function response', async () => {
    const { text, sent } = await ask('gemini', lookupTurn);
    expect(text).toBe('About 2.1 million.');
    expect((sent.contents as unknown[]).at(-1)).toEqual({ role: 'user', parts: [{ functionResponse: { id: 'toolu_kb1', name: 'lookup', response: { name: 'lookup', content: PARIS_TEXT } } }] });
  });

  it('reaches Bedrock with its cache marker as a cache point right after its text, as a text block’s', async () => {
    bedrock.enqueue(bedrockStep({ text: 'About 2.1 million.', usage: USAGE }));
    const client = anthropicClient(gateway);
    const marked = { ...paris, cache_control: { type: 'ephemeral' as const } };
    const answer = await client.messages.create({ model: 'test/bedrock', max_tokens: 128, messages: [{ role: 'user', content: [marked, { type: 'text', text: 'How many?' }] }] });
    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'About 2.1 million.' })]);
    expect((bedrock.lastRequest().body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: [{ text: PARIS_TEXT }, { cachePoint: { type: 'default' } }, { text: 'How many?' }] },
    ]);
  });

  it('has its citations dropped with a logged warning, never silently', async () => {
    await ask('openai', lookupTurn);
    expect(gateway.logs.some((line) => line.includes('request adapted to the vendor') && line.includes('messages[2].content[0].content[0].citations dropped: citations are Anthropic’s'))).toBe(true);
  });
});

describe('a document with a content source on a translated vendor', () => {
  const question: Anthropic.MessageParam = { role: 'user', content: [atlas, { type: 'text', text: 'Which countries?' }] };

  it('reaches OpenAI Chat as its title, context and texts, its image as an image at its place', async () => {
    const { text, sent } = await ask('openai', [question]);
    expect(text).toBe('About 2.1 million.');
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Atlas\n\nA school atlas, 2024 edition\n\nChapter 1: France.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: 'Chapter 2: Spain.' },
          { type: 'text', text: 'Which countries?' },
        ],
      },
    ]);
  });

  it('reaches Gemini the same way, its image as inline data', async () => {
    const { sent } = await ask('gemini', [question]);
    expect(sent.contents).toEqual([
      {
        role: 'user',
        parts: [{ text: 'Atlas\n\nA school atlas, 2024 edition\n\nChapter 1: France.' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { text: 'Chapter 2: Spain.' }, { text: 'Which countries?' }],
      },
    ]);
  });

  it('given as a string, reaches Gemini as one text', async () => {
    const { sent } = await ask('gemini', [{ role: 'user', content: [{ type: 'document', title: 'Note', source: { type: 'content', content: 'Lyon is in France.' } }] }]);
    expect(sent.contents).toEqual([{ role: 'user', parts: [{ text: 'Note\n\nLyon is in France.' }] }]);
  });

  it('inside a tool result reaches Gemini as the function response, its image beside it', async () => {
    const messages: Anthropic.MessageParam[] = [...lookupTurn.slice(0, 2), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_kb1', content: [atlas] }] }];
    const { sent } = await ask('gemini', messages);
    // One function response per call (the result's texts joined by newlines, as any result's), the image after it.
    expect((sent.contents as unknown[]).at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'toolu_kb1', name: 'lookup', response: { name: 'lookup', content: 'Atlas\n\nA school atlas, 2024 edition\n\nChapter 1: France.\nChapter 2: Spain.' } } },
        { inlineData: { mimeType: 'image/png', data: PNG } },
        { text: 'Tool executed successfully and returned this image as a response' },
      ],
    });
  });

  it('holding images, is never sent to a model without vision: the 400 names the block and the model', async () => {
    const client = anthropicClient(gateway);
    const sent = client.messages.create({ model: 'test/text-only', max_tokens: 128, messages: [question] });
    await expect(sent).rejects.toMatchObject({
      status: 400,
      error: { error: { type: 'invalid_request_error', message: 'Invalid request parameters: messages[0].content[0] is a document holding images, which test/text-only on oai cannot read (it has no vision input)' } },
    });
    expect(openai.requests).toHaveLength(0);
  });

  it('without images, reaches a model without vision', async () => {
    openai.enqueue(openAiChatStep({ text: 'France.', usage: USAGE }));
    const client = anthropicClient(gateway);
    const document: Anthropic.DocumentBlockParam = { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'Chapter 1: France.' }] } };
    const answer = await client.messages.create({ model: 'test/text-only', max_tokens: 128, messages: [{ role: 'user', content: [document] }] });
    expect(answer.content).toEqual([expect.objectContaining({ type: 'text', text: 'France.' })]);
    expect(openai.lastRequest().body).toMatchObject({ model: 'gpt-text', messages: [{ role: 'user', content: 'Chapter 1: France.' }] });
  });
});
