/**
 * Structured output (`output_config.format`) on OpenAI, end to end with the official Anthropic SDK's
 * `messages.parse` and its JSON-schema helper. The SDK keeps a schema's optional properties out of `required`,
 * which Anthropic accepts; OpenAI's strict mode, which its packages ask for by default, refuses such a schema
 * with a 400. The gateway sends a schema outside strict mode with `strict: false`, and one inside it strictly.
 * A compatible vendor that takes no schema (DeepSeek) has JSON mode only, which would drop it: refused.
 */
import Anthropic from '@anthropic-ai/sdk';
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema';
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const CHAT_MODEL = 'e2e/gpt-chat-structured';
const RESPONSES_MODEL = 'e2e/gpt-responses-structured';
const GROQ_MODEL = 'e2e/groq-structured';
const ANSWER = { name: 'Ada Lovelace', born: 1815 };

const chat = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-openai-e2e-structured-01", family: openai-chat }`,
  model: { slug: CHAT_MODEL, provider: 'openai', upstreamModel: 'gpt-4.1-mini', pricing: '{ input: 0.4, output: 1.6 }' },
});

const responses = useE2eTarget({
  startUpstream: startFakeOpenAiResponses,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-openai-e2e-structured-02" }`,
  model: { slug: RESPONSES_MODEL, provider: 'openai', upstreamModel: 'gpt-5-mini', pricing: '{ input: 0.25, output: 2 }' },
});

// Groq's preset takes schemas (`supportsStructuredOutputs`); its strict mode has OpenAI's rules.
const groq = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  groq: { base_url: "${fake.baseURL}", api_key: "gsk-e2e-structured-03" }`,
  model: { slug: GROQ_MODEL, provider: 'groq', upstreamModel: 'openai/gpt-oss-120b', pricing: '{ input: 0.15, output: 0.6 }' },
});

// DeepSeek's preset takes no schema: the package would send `response_format: json_object` without it.
const DEEPSEEK_MODEL = 'e2e/deepseek-structured';
const deepseek = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  deepseek: { base_url: "${fake.baseURL}", api_key: "sk-deepseek-e2e-structured-04" }`,
  model: { slug: DEEPSEEK_MODEL, provider: 'deepseek', upstreamModel: 'deepseek-chat', pricing: '{ input: 0.28, output: 0.42 }' },
});

/** A person with an optional nickname: valid for Anthropic, outside OpenAI's strict mode. */
const withOptional = jsonSchemaOutputFormat({
  type: 'object',
  properties: { name: { type: 'string' }, born: { type: 'integer' }, nickname: { type: 'string' } },
  required: ['name', 'born'],
});
const allRequired = jsonSchemaOutputFormat({
  type: 'object',
  properties: { name: { type: 'string' }, born: { type: 'integer' } },
  required: ['name', 'born'],
});

function chatCompletion(content: string): unknown {
  return {
    id: 'chatcmpl-structured-1',
    object: 'chat.completion',
    created: 1770933883,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
  };
}

function responsesAnswer(text: string): unknown {
  return {
    id: 'resp_structured_1',
    object: 'response',
    created_at: 1772062769,
    status: 'completed',
    model: 'gpt-5-mini',
    output: [{ id: 'msg_structured_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text }] }],
    usage: { input_tokens: 40, output_tokens: 12, total_tokens: 52, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

const ask = { max_tokens: 512, messages: [{ role: 'user' as const, content: 'Who wrote the first program? Name and birth year.' }] };

interface ChatBody {
  response_format?: { type: string; json_schema?: { name?: string; strict?: boolean; schema?: unknown } };
}
interface ResponsesBody {
  text?: { format?: { type: string; strict?: boolean; schema?: unknown } };
}

describe('structured output on OpenAI Chat Completions', () => {
  it('a schema with an optional property is sent with strict: false, and parsed_output reaches the SDK', async () => {
    chat.upstream.clear();
    chat.upstream.enqueue(reply.json(chatCompletion(JSON.stringify(ANSWER))));
    const message = await chat.client.messages.parse({ ...ask, model: CHAT_MODEL, output_config: { format: withOptional } });

    expect(message.parsed_output).toEqual(ANSWER);
    const format = (chat.upstream.lastRequest()?.body as ChatBody).response_format;
    expect(format).toEqual({ type: 'json_schema', json_schema: { name: 'response', strict: false, schema: withOptional.schema } });
  });

  it('a schema inside strict mode keeps strict: true', async () => {
    chat.upstream.clear();
    chat.upstream.enqueue(reply.json(chatCompletion(JSON.stringify(ANSWER))));
    const message = await chat.client.messages.parse({ ...ask, model: CHAT_MODEL, output_config: { format: allRequired } });

    expect(message.parsed_output).toEqual(ANSWER);
    expect((chat.upstream.lastRequest()?.body as ChatBody).response_format?.json_schema?.strict).toBe(true);
  });

  it('an open nested object (no additionalProperties: false) is sent with strict: false', async () => {
    chat.upstream.clear();
    chat.upstream.enqueue(reply.json(chatCompletion(JSON.stringify({ person: ANSWER }))));
    const schema = { type: 'object', properties: { person: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, required: ['person'], additionalProperties: false };
    await chat.client.messages.create({ ...ask, model: CHAT_MODEL, output_config: { format: { type: 'json_schema', schema } } });

    expect((chat.upstream.lastRequest()?.body as ChatBody).response_format?.json_schema?.strict).toBe(false);
  });
});

describe('structured output on OpenAI Responses', () => {
  it('a schema with an optional property is sent with strict: false, and parsed_output reaches the SDK', async () => {
    responses.upstream.clear();
    responses.upstream.enqueue(reply.json(responsesAnswer(JSON.stringify(ANSWER))));
    const message = await responses.client.messages.parse({ ...ask, model: RESPONSES_MODEL, output_config: { format: withOptional } });

    expect(message.parsed_output).toEqual(ANSWER);
    const format = (responses.upstream.lastRequest()?.body as ResponsesBody).text?.format;
    expect(format).toMatchObject({ type: 'json_schema', strict: false, schema: withOptional.schema });
  });
});

describe('structured output on an OpenAI-compatible vendor (Groq)', () => {
  it('a schema with an optional property is sent with strict: false, one inside strict mode strictly', async () => {
    groq.upstream.clear();
    groq.upstream.enqueue(reply.json(chatCompletion(JSON.stringify(ANSWER))), reply.json(chatCompletion(JSON.stringify(ANSWER))));
    const loose = await groq.client.messages.parse({ ...ask, model: GROQ_MODEL, output_config: { format: withOptional } });
    expect(loose.parsed_output).toEqual(ANSWER);
    expect((groq.upstream.requests[0]?.body as ChatBody).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', strict: false, schema: withOptional.schema } });

    await groq.client.messages.parse({ ...ask, model: GROQ_MODEL, output_config: { format: allRequired } });
    expect((groq.upstream.requests[1]?.body as ChatBody).response_format?.json_schema?.strict).toBe(true);
  });
});

describe('structured output on an OpenAI-compatible vendor without schemas (DeepSeek)', () => {
  it('is refused with a 400 naming output_config.format, and nothing reaches the vendor', async () => {
    deepseek.upstream.clear();
    const error = await deepseek.client.messages.parse({ ...ask, model: DEEPSEEK_MODEL, output_config: { format: allRequired } }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('output_config.format (a JSON schema; this vendor has JSON mode only) is not supported by');
    expect(deepseek.upstream.requests).toHaveLength(0);
  });
});

describe('strict tools on OpenAI Chat Completions', () => {
  const booking = (required: string[]) => ({
    name: 'book_flight',
    description: 'Books a flight',
    strict: true,
    input_schema: { type: 'object' as const, properties: { to: { type: 'string' }, passengers: { type: 'integer' } }, required, additionalProperties: false },
  });
  const toolCall = {
    id: 'chatcmpl-structured-2',
    object: 'chat.completion',
    created: 1770933883,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'book_flight', arguments: '{"to":"Lisbon"}' } }], refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 60, completion_tokens: 9, total_tokens: 69 },
  };
  const sentTools = () => (chat.upstream.lastRequest()?.body as { tools?: Array<{ function: { name: string; strict?: boolean } }> }).tools;

  it('a strict tool with an optional parameter is sent without strict mode, and its call comes back', async () => {
    chat.upstream.clear();
    chat.upstream.enqueue(reply.json(toolCall));
    const message = await chat.client.messages.create({ ...ask, model: CHAT_MODEL, tools: [booking(['to'])] });

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'book_flight', input: { to: 'Lisbon' } }]);
    expect(sentTools()?.[0]?.function.strict).toBe(false);
  });

  it('a strict tool inside strict mode stays strict', async () => {
    chat.upstream.clear();
    chat.upstream.enqueue(reply.json(toolCall));
    await chat.client.messages.create({ ...ask, model: CHAT_MODEL, tools: [booking(['to', 'passengers'])] });

    expect(sentTools()?.[0]?.function.strict).toBe(true);
  });
});
