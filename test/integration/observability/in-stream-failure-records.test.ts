/**
 * The generation record of a streamed request whose only attempt failed inside an answer its upstream began
 * with HTTP 200: an OpenAI Responses `response.failed`, an Anthropic-format `error` event, an OpenAI Chat error
 * data line. The record's `http_status` is what the client got (the JSON error's status when the failure came
 * before the stream's first byte, 200 after it); the attempt's `http_status` is the 200 its upstream answered
 * with and its `status` the vendor's failure class, before the first byte as after it. Before, a failure before
 * output recorded the status its error code stands for (500 for `server_error`) or none (Anthropic's
 * `overloaded_error`) on its attempt, and the client's message named that status. Driven with the Anthropic SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { responsesProviderYaml } from '#test/integration/routing/responses-gateway-support.ts';

const USAGE = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };
const SERVER_ERROR = { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' };
const ITEM = { id: 'msg_records0001', type: 'message', status: 'in_progress', role: 'assistant', content: [] };

function responseObject(status: string, error: unknown, usage: unknown): Record<string, unknown> {
  return { id: 'resp_records0001', object: 'response', created_at: 1_763_474_589, status, background: false, error, incomplete_details: null, model: 'gpt-test', output: [], service_tier: 'default', store: false, usage };
}

const CREATED = [
  { type: 'response.created', sequence_number: 0, response: responseObject('in_progress', null, null) },
  { type: 'response.in_progress', sequence_number: 1, response: responseObject('in_progress', null, null) },
];
const OUTPUT = [
  { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: ITEM },
  { type: 'response.content_part.added', sequence_number: 3, item_id: ITEM.id, output_index: 0, content_index: 0, part: { type: 'output_text', annotations: [], text: '' } },
  { type: 'response.output_text.delta', sequence_number: 4, item_id: ITEM.id, output_index: 0, content_index: 0, delta: 'Partly', logprobs: [] },
];
const FAILED = { type: 'response.failed', sequence_number: 5, response: responseObject('failed', SERVER_ERROR, USAGE) };

let responses: FakeUpstream;
let chat: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [responses, chat, alpha] = await Promise.all([startFakeOpenAiResponses(), startFakeOpenAiChat(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        responsesProviderYaml(responses, 'sk-records-responses-0001'),
        `  up-chat: { family: openai-chat, display_name: "Chat Test", base_url: "${chat.baseURL}", api_key: "sk-records-chat-0001" }`,
        anthropicProviderYaml('alpha', alpha),
      ],
      [
        modelYaml('test/gpt', [{ provider: 'up-responses', model: 'gpt-test', price: [1, 2] }]),
        modelYaml('test/chat', [{ provider: 'up-chat', model: 'gpt-test', price: [1, 2] }]),
        modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [1, 2] }]),
      ],
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([responses?.close(), chat?.close(), alpha?.close()]);
});

beforeEach(() => {
  for (const upstream of [responses, chat, alpha]) upstream.clear();
});

/** Streams `model` with the Anthropic SDK: the events it got, the error it ended with, and its generation id. */
async function streamed(model: string): Promise<{ types: string[]; error: InstanceType<typeof Anthropic.APIError>; id: string }> {
  const types: string[] = [];
  let id = '';
  try {
    const { data, response } = await anthropicClient(gateway)
      .messages.create({ model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    id = response.headers.get('x-generation-id') ?? '';
    for await (const event of data) types.push(event.type);
  } catch (error) {
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    return { types, error: apiError, id: id || (apiError.headers?.get('x-generation-id') ?? '') };
  }
  throw new Error(`the stream of ${model} ended without an error`);
}

describe('a streamed request whose only attempt fails inside its answer', () => {
  it('OpenAI Responses, response.failed before output: the client gets a 502; the attempt records server_error under 200', async () => {
    responses.enqueue(reply.events([...CREATED, { ...FAILED, sequence_number: 2 }]));
    const { error, id } = await streamed('test/gpt');
    expect(error.status).toBe(502);
    expect(error.message).toContain('server error');
    expect(error.message).not.toMatch(/\(\d{3}\)/);
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 502, error: { type: 'AllAttemptsFailedError' } });
    expect(record.attempts).toMatchObject([{ status: 'server_error', http_status: 200 }]);
  });

  it('OpenAI Responses, response.failed after output: the client got 200 and an error event; the attempt the same', async () => {
    responses.enqueue(reply.events([...CREATED, ...OUTPUT, FAILED]));
    const { types, error, id } = await streamed('test/gpt');
    expect(types).toContain('content_block_delta');
    expect(error.error).toMatchObject({ error: { type: 'api_error' } });
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 200, error: { type: 'UpstreamError:server_error' } });
    expect(record.attempts).toMatchObject([{ status: 'server_error', http_status: 200 }]);
  });

  it('an Anthropic-format upstream whose first event is an overloaded_error: the client gets a 529; the attempt records overloaded under 200', async () => {
    alpha.enqueue(reply.events([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]));
    const { error, id } = await streamed('test/claude');
    expect(error.status).toBe(529);
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 529 });
    expect(record.attempts).toMatchObject([{ status: 'overloaded', http_status: 200 }]);
  });

  it('OpenAI Chat, an error data line before output: the client gets a 429; the attempt records rate_limited under 200', async () => {
    chat.enqueue(reply.fixture('openai-text.chunks.txt', { streamError: { afterEvents: 0, status: 429 } }));
    const { error, id } = await streamed('test/chat');
    expect(error.status).toBe(429);
    const record = await generationOf(gateway, id);
    expect(record).toMatchObject({ status: 'error', http_status: 429 });
    expect(record.attempts).toMatchObject([{ status: 'rate_limited', http_status: 200 }]);
  });
});
