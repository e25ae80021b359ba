/**
 * Two client mistakes every vendor refuses, which used to reach them: a `tool_choice` forcing a tool the request
 * does not offer (Anthropic and OpenAI answer 400 in words of their own; the AI SDK drops the choice when there
 * are no tools, so the forced call silently did not happen), and image or PDF `source.data` that is not base64
 * (OpenAI was sent a `data:` URL and answered about an `image_url` the client never wrote). Now each is a 400 in
 * Anthropic's shape naming the field, before any upstream call, on every API family alike, through the
 * Anthropic SDK as a client would meet it; the well-formed requests still go through.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';

const VENDORS = [
  { slug: 'anthropic', start: () => startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') }), yaml: (upstream: FakeUpstream) => `family: anthropic, base_url: "${upstream.url}", api_key: "sk-ant-mistakes-0001"` },
  { slug: 'openai-chat', start: () => startFakeOpenAiChat({ whenEmpty: reply.fixture('openai-text') }), yaml: (upstream: FakeUpstream) => `family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-chat-mistakes-0001"` },
  { slug: 'openai-responses', start: () => startFakeOpenAiResponses({ whenEmpty: reply.fixture('openai-phase.1') }), yaml: (upstream: FakeUpstream) => `family: openai-responses, base_url: "${upstream.baseURL}", api_key: "sk-responses-mistakes-0001"` },
  { slug: 'google', start: () => startFakeGemini({ whenEmpty: reply.fixture('google-text') }), yaml: (upstream: FakeUpstream) => `family: google, base_url: "${upstream.baseURL}", api_key: "sk-google-mistakes-0001"` },
  {
    slug: 'bedrock',
    start: () => startFakeBedrock({ whenEmpty: reply.fixture('amazon-bedrock-text') }),
    yaml: (upstream: FakeUpstream) => `family: bedrock, base_url: "${upstream.url}", aws: { region: us-east-1, access_key_id: "AKIAMISTAKESTEST0001", secret_access_key: "mistakes/secret/access/key/000000000001" }`,
  },
] as const;
const SLUGS = VENDORS.map((vendor) => vendor.slug);

const upstreams = new Map<string, FakeUpstream>();
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  for (const vendor of VENDORS) upstreams.set(vendor.slug, await vendor.start());
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      VENDORS.map((vendor) => `  up-${vendor.slug}: { ${vendor.yaml(upstreams.get(vendor.slug) as FakeUpstream)}, display_name: "${vendor.slug}" }`),
      VENDORS.map((vendor) => modelYaml(`test/${vendor.slug}`, [{ provider: `up-${vendor.slug}`, model: `up-${vendor.slug}`, price: [1, 1] }])),
    ),
  });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  for (const upstream of upstreams.values()) await upstream.close();
});

const WEATHER = { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

type Params = Anthropic.MessageCreateParamsNonStreaming;

/** The gateway's refusal as the SDK raises it, and how many requests each upstream received meanwhile. */
async function refusal(call: () => Promise<unknown>): Promise<{ error: InstanceType<typeof Anthropic.APIError>; upstreamCalls: number }> {
  const before = [...upstreams.values()].reduce((sum, upstream) => sum + upstream.requests.length, 0);
  const error = await call().then(
    () => {
      throw new Error('the gateway answered instead of refusing');
    },
    (caught: unknown) => caught as InstanceType<typeof Anthropic.APIError>,
  );
  const after = [...upstreams.values()].reduce((sum, upstream) => sum + upstream.requests.length, 0);
  return { error, upstreamCalls: after - before };
}

function expectBadRequest(error: InstanceType<typeof Anthropic.APIError>, message: string, path: string): void {
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  expect(error.error).toMatchObject({
    type: 'error',
    error: { type: 'invalid_request_error', code: 400, message: `Invalid request parameters: ${message}`, details: { parameters: [{ path }] } },
  });
}

describe('tool_choice forcing a tool the request does not offer', () => {
  const cases = SLUGS.flatMap((slug) => [
    { slug, label: 'another tool is offered', tools: [WEATHER], message: 'tool_choice.name: no tool of the request is named "get_time" (the request\'s tools are get_weather)' },
    { slug, label: 'no tools at all', tools: undefined, message: 'tool_choice.name: no tool of the request is named "get_time" (the request offers no tools)' },
  ]);

  it.each(cases)('test/$slug, $label: 400 naming tool_choice.name, no upstream call', async ({ slug, tools, message }) => {
    const params: Params = { model: `test/${slug}`, max_tokens: 64, messages: [{ role: 'user', content: 'What time is it?' }], ...(tools ? { tools } : {}), tool_choice: { type: 'tool', name: 'get_time' } };
    const { error, upstreamCalls } = await refusal(() => client.messages.create(params));
    expectBadRequest(error, message, '/body/tool_choice/name');
    expect(upstreamCalls).toBe(0);
  });

  it.each(SLUGS)('test/%s, any with no tools: 400 naming tool_choice.type, no upstream call', async (slug) => {
    const { error, upstreamCalls } = await refusal(() => client.messages.create({ model: `test/${slug}`, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], tool_choice: { type: 'any' } }));
    expectBadRequest(error, 'tool_choice.type is any, which forces a tool call, but the request offers no tools (add tools, or leave tool_choice out)', '/body/tool_choice/type');
    expect(upstreamCalls).toBe(0);
  });

  it('count_tokens answers the same 400', async () => {
    const { error, upstreamCalls } = await refusal(() =>
      client.messages.countTokens({ model: 'test/anthropic', messages: [{ role: 'user', content: 'Hi' }], tools: [WEATHER], tool_choice: { type: 'tool', name: 'get_time' } }),
    );
    expectBadRequest(error, 'tool_choice.name: no tool of the request is named "get_time" (the request\'s tools are get_weather)', '/body/tool_choice/name');
    expect(upstreamCalls).toBe(0);
  });

  it('a tool the request offers is forced as before', async () => {
    const upstream = upstreams.get('anthropic') as FakeUpstream;
    const message = await client.messages.create({ model: 'test/anthropic', max_tokens: 64, messages: [{ role: 'user', content: 'Weather?' }], tools: [WEATHER], tool_choice: { type: 'tool', name: 'get_weather' } });
    expect(message.type).toBe('message');
    expect(upstream.lastRequest()?.body).toMatchObject({ tool_choice: { type: 'tool', name: 'get_weather' } });
  });

  it("a tool entry whose names the gateway cannot see (Anthropic's mcp_toolset) leaves the choice to the upstream", async () => {
    const upstream = upstreams.get('anthropic') as FakeUpstream;
    const before = upstream.requests.length;
    const response = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/anthropic', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 'docs' }], tool_choice: { type: 'tool', name: 'search_docs' } }),
    });
    expect(response.status).toBe(200);
    expect(upstream.requests).toHaveLength(before + 1);
  });
});

describe('image and PDF data that is not base64', () => {
  const image = (data: string) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data } });
  const pdf = (data: string) => ({ type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data } });
  const MISTAKES = [
    { label: 'a character base64 does not use', block: image('not base64!!'), problem: 'is not base64: it holds "!" (character 11), which base64 does not use' },
    { label: 'a data: URL', block: image(`data:image/png;base64,${PNG}`), problem: 'is a data: URL, not base64 text: send only the text after `base64,`' },
    { label: 'empty', block: image(''), problem: 'is empty' },
    { label: 'padding inside', block: pdf('JVBE=Ri0xLjQK'), problem: 'is not base64: `=` (padding) may only end it, at most twice' },
    { label: 'a length no bytes encode', block: pdf('JVBERi0xL'), problem: 'is not base64: 9 base64 characters encode no byte sequence (the text is cut short or has one character too many)' },
  ];
  const cases = SLUGS.flatMap((slug) => MISTAKES.map((mistake) => ({ slug, ...mistake })));

  it.each(cases)('test/$slug, $label: 400 naming the field, no upstream call', async ({ slug, block, problem }) => {
    const params: Params = { model: `test/${slug}`, max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, block] }] };
    const { error, upstreamCalls } = await refusal(() => client.messages.create(params));
    expectBadRequest(error, `messages[0].content[1].source.data ${problem}`, '/body/messages/0/content/1/source/data');
    expect(upstreamCalls).toBe(0);
  });

  it('inside a tool result and a content document, the field is named where it is', async () => {
    const toolTurn: Params['messages'] = [
      { role: 'user', content: 'Take a screenshot' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'screenshot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'Here' }, image('[blob missing]')] }] },
    ];
    const inResult = await refusal(() => client.messages.create({ model: 'test/openai-chat', max_tokens: 64, messages: toolTurn, tools: [{ name: 'screenshot', input_schema: { type: 'object' } }] }));
    expectBadRequest(inResult.error, 'messages[2].content[0].content[1].source.data is not base64: it holds "[" (character 1), which base64 does not use', '/body/messages/2/content/0/content/1/source/data');
    const document = { type: 'document' as const, source: { type: 'content' as const, content: [{ type: 'text' as const, text: 'Page 1' }, image('%%%')] } };
    const inDocument = await refusal(() => client.messages.create({ model: 'test/google', max_tokens: 64, messages: [{ role: 'user', content: [document] }] }));
    expectBadRequest(inDocument.error, 'messages[0].content[0].source.content[1].source.data is not base64: it holds "%" (character 1), which base64 does not use', '/body/messages/0/content/0/source/content/1/source/data');
    expect(inResult.upstreamCalls + inDocument.upstreamCalls).toBe(0);
  });

  it('count_tokens answers the same 400', async () => {
    const { error } = await refusal(() => client.messages.countTokens({ model: 'test/anthropic', messages: [{ role: 'user', content: [image('not base64!!')] }] }));
    expectBadRequest(error, 'messages[0].content[0].source.data is not base64: it holds "!" (character 11), which base64 does not use', '/body/messages/0/content/0/source/data');
  });

  it.each(SLUGS)('test/%s: a real PNG, and base64 with line breaks and no padding, still go through', async (slug) => {
    const upstream = upstreams.get(slug) as FakeUpstream;
    const before = upstream.requests.length;
    const wrapped = `${PNG.slice(0, 40)}\n${PNG.slice(40).replace(/=+$/, '')}`;
    const message = await client.messages.create({ model: `test/${slug}`, max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image(PNG), image(wrapped)] }] });
    expect(message.type).toBe('message');
    expect(upstream.requests).toHaveLength(before + 1);
  });
});
