/**
 * The AI SDK's Anthropic provider (`@ai-sdk/anthropic`, as an app uses it with `generateText` / `streamText`)
 * pointed at the gateway, on the Anthropic passthrough and on translated vendors. What its users rely on:
 * - on Anthropic, an image with a `cacheControl` provider option and a tool round trip reach the upstream as
 *   the SDK wrote them (the block's `cache_control`, the `tool_result` under the call's id);
 * - on Gemini, a tool whose `execute` throws: the SDK sends an error `tool_result`, Gemini gets it as the
 *   `functionResponse` of that call (its `error`), and the run ends with the model's answer;
 * - on OpenAI Responses with thinking (`providerOptions.anthropic.thinking`), the reasoning reaches the SDK
 *   as reasoning text, and the next step hands OpenAI its own `reasoning` item (id and `encrypted_content`)
 *   back before the function call and its output;
 * - an Anthropic-only tool on a vendor that cannot run it is an `APICallError` 400 (`invalid_request_error`,
 *   naming the tool), not retryable, with the gateway's request id.
 */
import { anthropic as anthropicProvider, createAnthropic } from '@ai-sdk/anthropic';
import { APICallError, generateText, stepCountIs, streamText, tool, type Tool } from 'ai';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, geminiStep, startFakeAnthropic, startFakeGemini, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { responsesReadCall, responsesText, tinyPng } from '#test/integration/claude-code/vendor-read-calls.ts';
import { builtInCatalogYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const GENERATION_ID = /^gen_[A-Za-z0-9_-]{24}$/;
const USAGE = { input: 40, output: 6 };

let anthropic: FakeUpstream;
let gemini: FakeUpstream;
let responses: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [anthropic, gemini, responses] = await Promise.all([startFakeAnthropic(), startFakeGemini(), startFakeOpenAiResponses()]);
  const providers = [
    `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-shared-ai-sdk-client-0001" }`,
    `  google: { base_url: "${gemini.baseURL}", api_key: "gemini-shared-ai-sdk-client-0001" }`,
    `  openai: { base_url: "${responses.baseURL}", api_key: "sk-openai-shared-ai-sdk-client-0001" }`,
  ];
  gateway = await startTestGateway({ catalogYaml: builtInCatalogYaml(...providers) });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), gemini?.close(), responses?.close()]);
});
beforeEach(() => {
  for (const upstream of [anthropic, gemini, responses]) upstream.clear();
});

/** The provider as its docs configure it for another base URL: the gateway's `/api/v1` and an inference key. */
function gatewayModel(slug: string) {
  return createAnthropic({ baseURL: gateway.baseUrl, apiKey: gateway.api_key })(slug);
}

const weather = tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });

describe('@ai-sdk/anthropic through the gateway', () => {
  it('on Anthropic, an image with cacheControl and a tool round trip reach the upstream as the SDK wrote them', async () => {
    anthropic.enqueue(anthropicStep({ calls: [{ name: 'weather', input: { city: 'Paris' }, id: 'toolu_01AiSdkClient' }], usage: USAGE }), anthropicStep({ text: 'Sunny in Paris.', usage: USAGE }));
    const result = streamText({
      model: gatewayModel('anthropic/claude-sonnet-4.5'),
      maxOutputTokens: 1024,
      maxRetries: 0,
      tools: { weather },
      stopWhen: stepCountIs(3),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Where is this, and what is the weather there?' },
            { type: 'image', image: tinyPng(), mediaType: 'image/png', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
          ],
        },
      ],
    });

    expect(await result.text).toBe('Sunny in Paris.');
    const [first, second] = anthropic.requests.map((sent) => sent.body as { model: string; messages: Array<{ role: string; content: Array<Record<string, unknown>> }> });
    expect(first?.model).toBe('claude-sonnet-4-5');
    expect(first?.messages[0]?.content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: tinyPng().toString('base64') }, cache_control: { type: 'ephemeral' } });
    expect(second?.messages.at(-1)?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_01AiSdkClient', content: 'sunny in Paris' }]);
  });

  it('on Gemini, a tool that throws reaches Gemini as the error of its functionResponse, and the run ends answered', async () => {
    gemini.enqueue(geminiStep({ calls: [{ name: 'weather', input: { city: 'Oslo' } }], usage: USAGE }), geminiStep({ text: 'The station is offline.', usage: USAGE }));
    const failing = tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async (): Promise<string> => Promise.reject(new Error('station offline')) });
    const result = await generateText({ model: gatewayModel('google/gemini-2.5-pro'), prompt: 'Weather in Oslo?', tools: { weather: failing }, stopWhen: stepCountIs(3), maxOutputTokens: 1024, maxRetries: 0 });

    expect(result.text).toBe('The station is offline.');
    const contents = (gemini.lastRequest().body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    const call = contents.at(-2)?.parts[0]?.functionCall as { id?: string; name: string };
    expect(call.name).toBe('weather');
    expect(contents.at(-1)).toEqual({ role: 'user', parts: [{ functionResponse: { ...(call.id ? { id: call.id } : {}), name: 'weather', response: { name: 'weather', error: 'Error: station offline' } } }] });
  });

  it('on OpenAI Responses with thinking, the reasoning reaches the SDK and OpenAI gets its reasoning item back', async () => {
    const reasoning = { id: 'rs_01AiSdkClient', summary: 'The user wants the file read.', encryptedContent: 'gAAAAB-ai-sdk-client-encrypted' };
    responses.enqueue(responsesReadCall('/srv/notes.txt', 'call_01AiSdkClient', reasoning), responsesText('The notes say hello.'));
    const read = tool({ description: 'Reads a file', inputSchema: z.object({ file_path: z.string() }), execute: async () => 'hello' });
    const result = streamText({
      model: gatewayModel('openai/gpt-5-mini'),
      prompt: 'Read /srv/notes.txt',
      tools: { Read: read },
      stopWhen: stepCountIs(3),
      maxOutputTokens: 4096,
      maxRetries: 0,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } },
    });

    expect(await result.text).toBe('The notes say hello.');
    expect((await result.steps)[0]?.reasoningText).toBe(reasoning.summary);
    const input = (responses.lastRequest().body as { input: Array<Record<string, unknown>> }).input;
    expect(input.slice(1)).toEqual([
      { type: 'reasoning', id: reasoning.id, encrypted_content: reasoning.encryptedContent, summary: [{ type: 'summary_text', text: reasoning.summary }] },
      { type: 'function_call', call_id: 'call_01AiSdkClient', name: 'Read', arguments: JSON.stringify({ file_path: '/srv/notes.txt' }) },
      { type: 'function_call_output', call_id: 'call_01AiSdkClient', output: 'hello' },
    ]);
  });

  it('an Anthropic-only tool on Gemini is a 400 APICallError naming it, not retryable, with the request id', async () => {
    // The provider package types its tools with its own copy of provider-utils, which `ai` does not take as its own.
    const bash = anthropicProvider.tools.bash_20250124({ execute: async () => 'ok' }) as unknown as Tool;
    const error = await generateText({ model: gatewayModel('google/gemini-2.5-pro'), prompt: 'List the files.', tools: { bash }, maxOutputTokens: 256, maxRetries: 0 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(400);
    expect(apiError.isRetryable).toBe(false);
    expect(apiError.message).toContain('bash_20250124');
    expect(apiError.data).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(apiError.responseHeaders?.['request-id']).toMatch(GENERATION_ID);
    expect(gemini.requests).toHaveLength(0);
  });
});
