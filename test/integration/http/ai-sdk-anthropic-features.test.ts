/**
 * More of the AI SDK's Anthropic provider (`@ai-sdk/anthropic` 4.0.105 with `ai` 7) as a client of the gateway,
 * beside ai-sdk-anthropic-client: structured output, reasoning and streamed tool calls, on the Anthropic
 * passthrough and on OpenAI Chat Completions. What an app relies on:
 * - `Output.object` on a Claude slug: the provider asks in `output_config.format`, which Anthropic gets as
 *   written, and `output` is the parsed object;
 * - `Output.object` on an OpenAI slug: the provider's default for a model it does not know is its forced `json`
 *   tool, which OpenAI gets as a required function; with `structuredOutputMode: 'outputFormat'` OpenAI gets a
 *   strict `response_format` instead; `output` is the object either way;
 * - thinking with a tool, streamed from Anthropic: the reasoning (signed and redacted) reaches the SDK, and the
 *   next step hands Anthropic both blocks back unchanged before the tool call, as Anthropic requires;
 * - adaptive thinking with an effort reaches Anthropic as the provider wrote them;
 * - `streamText` with a tool on OpenAI Chat: text and the call of one step, the tool's output in the next;
 * - Anthropic's server tools as the provider declares them (web search, code execution, web fetch), answered
 *   as Anthropic recorded them: each call and result reaches the SDK, JSON and streamed, sources too.
 */
import { anthropic as anthropicProvider, createAnthropic } from '@ai-sdk/anthropic';
import { generateText, Output, stepCountIs, streamText, tool, type Tool } from 'ai';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, readFixture, reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { builtInCatalogYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const USAGE = { input: 40, output: 6 };
const CITY = z.object({ city: z.string() });
/** The JSON schema the provider writes for {@link CITY}. */
const CITY_SCHEMA = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

let anthropic: FakeUpstream;
let chat: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [anthropic, chat] = await Promise.all([startFakeAnthropic(), startFakeOpenAiChat()]);
  const providers = [
    `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-shared-ai-sdk-features-0001" }`,
    `  openai: { family: openai-chat, base_url: "${chat.baseURL}", api_key: "sk-openai-shared-ai-sdk-features-0001" }`,
  ];
  gateway = await startTestGateway({ catalogYaml: builtInCatalogYaml(...providers) });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), chat?.close()]);
});
beforeEach(() => {
  anthropic.clear();
  chat.clear();
});

/** The provider as its docs configure it for another base URL: the gateway's `/api/v1` and an inference key. */
function gatewayModel(slug: string) {
  return createAnthropic({ baseURL: gateway.baseUrl, apiKey: gateway.api_key })(slug);
}

const weather = tool({ description: 'The weather in a city', inputSchema: CITY, execute: async ({ city }) => `sunny in ${city}` });
type Body = Record<string, unknown> & { messages: Array<{ role: string; content: unknown }> };
const sentTo = (upstream: FakeUpstream, index = -1) => upstream.requests.at(index)?.body as Body;

describe('structured output (Output.object)', () => {
  it('on Claude: output_config.format reaches Anthropic as written, output is the object', async () => {
    anthropic.enqueue(anthropicStep({ text: '{"city":"Paris"}', usage: USAGE }));
    const result = await generateText({ model: gatewayModel('anthropic/claude-sonnet-4.5'), prompt: 'Name a city.', output: Output.object({ schema: CITY }), maxOutputTokens: 512, maxRetries: 0 });

    expect(result.output).toEqual({ city: 'Paris' });
    const body = sentTo(anthropic);
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema: CITY_SCHEMA } });
    expect(body.tools).toBeUndefined();
  });

  it('on OpenAI Chat, the provider’s json tool: a required function, output is the object', async () => {
    chat.enqueue(openAiChatStep({ calls: [{ name: 'json', input: { city: 'Paris' }, id: 'call_Json01' }], usage: USAGE }));
    const result = await generateText({ model: gatewayModel('openai/gpt-4.1-mini'), prompt: 'Name a city.', output: Output.object({ schema: CITY }), maxOutputTokens: 512, maxRetries: 0 });

    expect(result.output).toEqual({ city: 'Paris' });
    const body = sentTo(chat);
    expect(body.tool_choice).toBe('required');
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'json', description: 'Respond with a JSON object.', parameters: CITY_SCHEMA } }]);
  });

  it('on OpenAI Chat with structuredOutputMode outputFormat: a strict response_format, output is the object', async () => {
    chat.enqueue(openAiChatStep({ text: '{"city":"Paris"}', usage: USAGE }));
    const result = await generateText({
      model: gatewayModel('openai/gpt-4.1-mini'),
      prompt: 'Name a city.',
      output: Output.object({ schema: CITY }),
      providerOptions: { anthropic: { structuredOutputMode: 'outputFormat' } },
      maxOutputTokens: 512,
      maxRetries: 0,
    });

    expect(result.output).toEqual({ city: 'Paris' });
    expect(sentTo(chat).response_format).toEqual({ type: 'json_schema', json_schema: { schema: CITY_SCHEMA, strict: true, name: 'response' } });
  });
});

describe('reasoning', () => {
  it('streamed from Anthropic with a tool: signed and redacted thinking reach the SDK and go back unchanged', async () => {
    const usage = { input_tokens: 40, output_tokens: 1 };
    anthropic.enqueue(
      reply.events([
        { type: 'message_start', message: { id: 'msg_01Reasoning', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage } },
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants the weather.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIMAiSdkFeatures' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgyAiSdkRedacted' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_01Reasoning', name: 'weather', input: {} } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } },
        { type: 'content_block_stop', index: 2 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
        { type: 'message_stop' },
      ]),
      anthropicStep({ text: 'Sunny in Paris.', usage: USAGE }),
    );
    const result = streamText({
      model: gatewayModel('anthropic/claude-sonnet-4.5'),
      prompt: 'Weather in Paris?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      maxOutputTokens: 4096,
      maxRetries: 0,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    });

    expect(await result.text).toBe('Sunny in Paris.');
    expect((await result.steps)[0]?.reasoningText).toBe('The user wants the weather.');
    expect(sentTo(anthropic, 0).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sentTo(anthropic, 1).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EqQBCgIYAhIMAiSdkFeatures' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgyAiSdkRedacted' },
          { type: 'tool_use', id: 'toolu_01Reasoning', name: 'weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Reasoning', content: 'sunny in Paris' }] },
    ]);
  });

  it('adaptive thinking with an effort reaches Anthropic as the provider wrote them', async () => {
    anthropic.enqueue(anthropicStep({ text: 'Hello.', usage: USAGE }));
    const result = await generateText({
      model: gatewayModel('anthropic/claude-opus-4.6'),
      prompt: 'Say hello.',
      maxOutputTokens: 1024,
      maxRetries: 0,
      providerOptions: { anthropic: { thinking: { type: 'adaptive' }, effort: 'high' } },
    });

    expect(result.text).toBe('Hello.');
    expect(sentTo(anthropic)).toMatchObject({ model: 'claude-opus-4-6', thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
  });
});

describe('streamText with a tool on OpenAI Chat', () => {
  it('gives the step’s text and call, then the answer; OpenAI gets the call and the tool output', async () => {
    chat.enqueue(openAiChatStep({ text: 'Checking.', calls: [{ name: 'weather', input: { city: 'Paris' }, id: 'call_Weather01' }], usage: USAGE }), openAiChatStep({ text: 'Sunny.', usage: USAGE }));
    const result = streamText({ model: gatewayModel('openai/gpt-4.1-mini'), prompt: 'Weather in Paris?', tools: { weather }, stopWhen: stepCountIs(3), maxOutputTokens: 1024, maxRetries: 0 });

    expect(await result.text).toBe('Sunny.');
    const steps = await result.steps;
    expect(steps.map((step) => [step.finishReason, step.text, step.toolCalls.map((call) => [call.toolName, call.input])])).toEqual([
      ['tool-calls', 'Checking.', [['weather', { city: 'Paris' }]]],
      ['stop', 'Sunny.', []],
    ]);
    expect(sentTo(chat).messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_Weather01', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_Weather01', content: 'sunny in Paris' },
    ]);
  });
});

describe("Anthropic's server tools, answered as Anthropic recorded them", () => {
  // The provider package types its tools with its own copy of provider-utils, which `ai` does not take as its own.
  const asTool = (value: unknown) => value as Tool;
  const cases = [
    { name: 'web_search_20250305', fixture: 'anthropic-web-search-tool.1', tools: () => ({ web_search: asTool(anthropicProvider.tools.webSearch_20250305({ maxUses: 2 })) }) },
    { name: 'code_execution_20250825', fixture: 'anthropic-code-execution-20250825.1', tools: () => ({ code_execution: asTool(anthropicProvider.tools.codeExecution_20250825()) }) },
    { name: 'web_fetch_20250910', fixture: 'anthropic-web-fetch-tool.1', tools: () => ({ web_fetch: asTool(anthropicProvider.tools.webFetch_20250910({ maxUses: 2 })) }) },
  ];
  type Recorded = { content: Array<{ type: string; id?: string; tool_use_id?: string; text?: string }> };
  /** What the SDK must show of the recording: every server call and result by id, and the text. */
  function expected(fixture: string) {
    const { content } = readFixture<Recorded>('anthropic', fixture);
    return {
      calls: content.filter((block) => block.type === 'server_tool_use').map((block) => block.id),
      results: content.filter((block) => block.type.endsWith('_tool_result')).map((block) => block.tool_use_id),
      text: content.filter((block) => block.type === 'text').map((block) => block.text).join(''),
    };
  }

  it.each(cases)('$name, as JSON', async ({ name, fixture, tools }) => {
    anthropic.enqueue(reply.fixture(fixture));
    const result = await generateText({ model: gatewayModel('anthropic/claude-sonnet-4.5'), prompt: 'Go.', tools: tools(), maxOutputTokens: 1024, maxRetries: 0 });

    const want = expected(fixture);
    expect(result.content.filter((part) => part.type === 'tool-call').map((part) => part.toolCallId)).toEqual(want.calls);
    expect(result.content.filter((part) => part.type === 'tool-result').map((part) => part.toolCallId)).toEqual(want.results);
    expect(result.text).toBe(want.text);
    expect(result.finishReason).toBe('stop');
    expect(sentTo(anthropic).tools).toEqual([expect.objectContaining({ type: name })]);
  });

  it.each(cases)('$name, streamed', async ({ fixture, tools }) => {
    anthropic.enqueue(reply.fixture(fixture));
    const result = streamText({ model: gatewayModel('anthropic/claude-sonnet-4.5'), prompt: 'Go.', tools: tools(), maxOutputTokens: 1024, maxRetries: 0 });

    const content = await result.content;
    expect(await result.finishReason).toBe('stop');
    expect(content.filter((part) => part.type === 'tool-call').length).toBeGreaterThan(0);
    expect(content.filter((part) => part.type === 'tool-result').length).toBe(content.filter((part) => part.type === 'tool-call').length);
    if (fixture === 'anthropic-web-search-tool.1') expect((await result.sources).length).toBeGreaterThan(0);
    expect(await result.text).not.toBe('');
  });
});
