/**
 * What each vendor receives for one Anthropic request carrying everything the translator maps: system with
 * a cache marker, an image and a PDF, a thinking block with this vendor's signature, a tool round trip, a
 * second cache marker, tools and tool_choice, thinking, structured output, stop sequences and temperature.
 * Whole request bodies as the fake vendor servers recorded them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { encodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import { reply, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall } from '#test/integration/providers/ai-sdk-test-support.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';
const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function everything(signature: string): Partial<MessageRequest> {
  return {
    max_tokens: 8000,
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'r.pdf' },
        ],
      },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature }, { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } as never }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' }, { type: 'text', text: 'And?', cache_control: { type: 'ephemeral' } }] },
    ],
    tools: [{ name: 'weather', description: 'Weather', input_schema: weatherSchema as never }],
    tool_choice: { type: 'auto' },
    thinking: { type: 'enabled', budget_tokens: 2048 },
    output_config: { format: { type: 'json_schema', schema: schema as never } },
    stop_sequences: ['STOP'],
    temperature: 0.5,
  };
}

const sig = (namespace: string, metadata: Record<string, string>) => encodeReasoningSignature({ namespace, metadata });
const chatUser = { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'file', file: { filename: 'r.pdf', file_data: `data:application/pdf;base64,${PDF}` } }] };
const chatTools = [{ type: 'function', function: { name: 'weather', description: 'Weather', parameters: weatherSchema } }];
const chatToolCall = [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }];
const cacheDropped = (label: string) => `cache_control dropped: ${label} caches prompts automatically, without breakpoints`;

const cases: Array<{
  family: AiSdkFamily;
  start: () => Promise<FakeUpstream>;
  reply: string;
  vendor?: 'groq';
  model: string;
  signature: string;
  /** Request fields the vendor cannot take (a 400 elsewhere in the suite), left out of its request. */
  without?: Array<keyof MessageRequest>;
  body: unknown;
  warnings: string[];
}> = [
  {
    family: 'openai-chat',
    start: () => startFakeOpenAiChat(),
    reply: 'openai-text',
    model: 'gpt-4.1-mini',
    signature: sig('openai', {}),
    body: {
      model: 'gpt-4.1-mini',
      max_tokens: 8000,
      temperature: 0.5,
      response_format: { type: 'json_schema', json_schema: { schema, strict: true, name: 'response' } },
      stop: ['STOP'],
      reasoning_effort: 'low',
      messages: [
        { role: 'system', content: 'Be brief.' },
        chatUser,
        { role: 'assistant', content: null, tool_calls: chatToolCall },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: 'And?' },
      ],
      tools: chatTools,
      tool_choice: 'auto',
    },
    warnings: [cacheDropped('OpenAI Chat Completions')],
  },
  {
    family: 'openai-compatible',
    start: () => startFakeOpenAiChat(),
    reply: 'groq-tool-call',
    vendor: 'groq',
    model: 'deepseek-reasoner',
    signature: sig('openaiCompatible', {}),
    // Without supportsStructuredOutputs the package would send JSON mode without the schema: refused instead
    // (openai-structured-output-strict.test.ts).
    without: ['output_config'],
    body: {
      model: 'deepseek-reasoner',
      max_tokens: 8000,
      temperature: 0.5,
      stop: ['STOP'],
      reasoning_effort: 'low',
      messages: [
        { role: 'system', content: 'Be brief.' },
        chatUser,
        { role: 'assistant', content: null, reasoning_content: 'hm', tool_calls: chatToolCall },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: 'And?' },
      ],
      tools: chatTools,
      tool_choice: 'auto',
    },
    warnings: [cacheDropped('OpenAI-compatible Chat Completions')],
  },
  {
    family: 'google',
    start: () => startFakeGemini(),
    reply: 'google-text',
    model: 'gemini-2.5-flash',
    signature: sig('google', { thoughtSignature: 'gsig' }),
    body: {
      generationConfig: {
        maxOutputTokens: 8000,
        temperature: 0.5,
        stopSequences: ['STOP'],
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      },
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { inlineData: { mimeType: 'application/pdf', data: PDF } }] },
        { role: 'model', parts: [{ text: 'hm', thought: true, thoughtSignature: 'gsig' }, { functionCall: { id: 'call_1', name: 'weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'weather', response: { name: 'weather', content: 'sunny' } } }] },
        { role: 'user', parts: [{ text: 'And?' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      // Gemini 2.5 cannot combine a response schema with function calling: the AI SDK offers a `json` tool.
      tools: [{ functionDeclarations: [{ name: 'weather', description: 'Weather', parametersJsonSchema: weatherSchema }, { name: 'json', description: 'Respond with a JSON object.', parametersJsonSchema: schema }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    },
    warnings: [cacheDropped('Google Gemini')],
  },
  {
    family: 'bedrock',
    start: () => startFakeBedrock(),
    reply: 'amazon-bedrock-text',
    model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
    signature: sig('bedrock', { signature: 'bsig' }),
    body: {
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Look' }, { image: { format: 'png', source: { bytes: PNG } } }, { document: { format: 'pdf', name: 'r', source: { bytes: PDF } } }] },
        { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'hm', signature: 'bsig' } } }, { toolUse: { toolUseId: 'call_1', name: 'weather', input: { city: 'Paris' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } }, { text: 'And?' }, { cachePoint: { type: 'default' } }] },
      ],
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false, required: ['a'] } } } },
      additionalModelResponseFieldPaths: ['/delta/stop_sequence'],
      // Anthropic's max_tokens (8000) includes the budget; the SDK adds it back, so the limit stays 8000.
      inferenceConfig: { maxTokens: 8000, stopSequences: ['STOP'] },
      toolConfig: { tools: [{ toolSpec: { name: 'weather', description: 'Weather', inputSchema: { json: weatherSchema } } }], toolChoice: { auto: {} } },
    },
    warnings: ['unsupported: temperature (temperature is not supported when thinking is enabled)'],
  },
  {
    family: 'openai-responses',
    start: () => startFakeOpenAiResponses(),
    reply: 'openai-phase.1',
    model: 'gpt-5-mini',
    signature: sig('openai', { itemId: 'rs_1', reasoningEncryptedContent: 'enc' }),
    without: ['stop_sequences'],
    body: {
      model: 'gpt-5-mini',
      input: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Look' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}` }, { type: 'input_file', filename: 'r.pdf', file_data: `data:application/pdf;base64,${PDF}` }] },
        { type: 'reasoning', id: 'rs_1', encrypted_content: 'enc', summary: [{ type: 'summary_text', text: 'hm' }] },
        { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        { role: 'user', content: [{ type: 'input_text', text: 'And?' }] },
      ],
      max_output_tokens: 8000,
      text: { format: { type: 'json_schema', strict: true, name: 'response', schema } },
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'detailed' },
      tools: [{ type: 'function', name: 'weather', description: 'Weather', parameters: weatherSchema, strict: false }],
      tool_choice: 'auto',
    },
    warnings: [cacheDropped('OpenAI Responses'), 'unsupported: temperature (temperature is not supported for reasoning models)'],
  },
];

let fake: FakeUpstream | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('AI SDK adapters, what the vendor receives', () => {
  it.each(cases)('$family sends the whole request in its own wire format', async (testCase) => {
    fake = await testCase.start();
    fake.enqueue(reply.fixture(`${testCase.reply}.json`, testCase.vendor ? { vendor: testCase.vendor } : {}));
    const adapter = createAiSdkAdapter({ family: testCase.family });
    const request = everything(testCase.signature);
    for (const field of testCase.without ?? []) delete request[field];
    const { warnings } = await adapter.generate(attemptCall({ family: testCase.family, baseUrl: fake.baseURL, upstreamModel: testCase.model, request }));
    const received = fake.lastRequest();
    // JSON equality: `undefined` fields are not on the wire.
    expect(JSON.parse(received.rawBody)).toEqual(testCase.body);
    expect(warnings).toEqual(testCase.warnings);
    expect(received.rawBody).not.toContain('sbsig1_');
  });

  it('authenticates each vendor its own way and never leaks the key into the body', async () => {
    const seen: Record<string, unknown> = {};
    const azure = { family: 'azure' as const, start: () => startFakeOpenAiChat(), reply: 'openai-text', model: 'my-deployment' };
    for (const testCase of [...cases, azure]) {
      fake = await testCase.start();
      fake.enqueue(reply.fixture(`${testCase.reply}.json`, 'vendor' in testCase && testCase.vendor ? { vendor: testCase.vendor } : {}));
      await createAiSdkAdapter({ family: testCase.family }).generate(attemptCall({ family: testCase.family, baseUrl: fake.baseURL, upstreamModel: testCase.model }));
      const { headers, rawBody } = fake.lastRequest();
      seen[testCase.family] = headers['x-goog-api-key'] ?? headers['api-key'] ?? headers.authorization;
      expect(rawBody).not.toContain('sk-test-key');
      await fake.close();
      fake = undefined;
    }
    expect(seen).toEqual({
      'openai-chat': 'Bearer sk-test-key',
      'openai-compatible': 'Bearer sk-test-key',
      google: 'sk-test-key',
      bedrock: 'Bearer sk-test-key',
      'openai-responses': 'Bearer sk-test-key',
      azure: 'sk-test-key',
    });
  });
});

describe('Gemini tool-call signatures', () => {
  it('come back on the function call when the client replays the answer', async () => {
    fake = await startFakeGemini();
    fake.enqueue(reply.fixture('google-tool-call.json'), reply.fixture('google-text.json'));
    const adapter = createAiSdkAdapter({ family: 'google' });
    const first = await adapter.generate(attemptCall({ family: 'google', baseUrl: fake.baseURL, upstreamModel: 'gemini-3-pro-preview' }));
    const toolUse = first.message.content[1] as { id: string };
    const second = await adapter.generate(
      attemptCall({
        family: 'google',
        baseUrl: fake.baseURL,
        upstreamModel: 'gemini-3-pro-preview',
        request: {
          messages: [
            { role: 'user', content: 'Weather in San Francisco?' },
            { role: 'assistant', content: first.message.content as never },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'foggy' }] },
          ],
        },
      }),
    );
    const sent = fake.lastRequest().body as { contents: Array<{ role: string; parts: unknown[] }> };
    expect(sent.contents[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { id: toolUse.id, name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: 'EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5' }],
    });
    // No `skip_thought_signature_validator` sentinel was needed.
    expect(second.warnings).toEqual([]);
  });
});
