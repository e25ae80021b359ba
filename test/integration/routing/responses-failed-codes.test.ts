/**
 * An OpenAI Responses answer that ends `failed` fails as its `error.code` says, whether it came as a JSON body
 * (HTTP 200, `status: "failed"`) or as a stream's `response.failed` before any output: `server_error` is a
 * server error and `rate_limit_exceeded` a rate limit, both moving on to the next provider; `invalid_prompt` is
 * the request's fault, answered 400 with the vendor's words, nothing else tried. Before, the JSON body failed
 * the AI SDK's schema (its `error` has no `type`) and read as a malformed answer whatever its code. Driven with
 * the Anthropic SDK against fake vendor servers; the failure's wire format as in
 * vendor-recordings/openai-responses/openai-error.1.chunks.txt (a `response.failed` event carrying the whole
 * response object) and the Responses object reference (a JSON body is that object).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { anthropicClient, resetFakes } from './routing-support.ts';
import { startResponsesOrClaudeGateway } from './responses-gateway-support.ts';

const USAGE = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 };

/** The response object as the vendor sends it in `response.failed` or as a JSON body. */
function responseObject(status: string, error: unknown, usage: unknown): Record<string, unknown> {
  return {
    id: 'resp_failedcodes0001',
    object: 'response',
    created_at: 1_763_474_589,
    status,
    background: false,
    error,
    incomplete_details: null,
    model: 'gpt-test',
    output: [],
    service_tier: 'default',
    store: false,
    usage,
  };
}

function failedJson(error: { code: string; message: string }): FakeReply {
  return reply.json(responseObject('failed', error, USAGE));
}

function failedStream(error: { code: string; message: string }): FakeReply {
  return reply.events([
    { type: 'response.created', sequence_number: 0, response: responseObject('in_progress', null, null) },
    { type: 'response.in_progress', sequence_number: 1, response: responseObject('in_progress', null, null) },
    { type: 'response.failed', sequence_number: 2, response: responseObject('failed', error, USAGE) },
  ]);
}

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ openai, alpha, gateway } = await startResponsesOrClaudeGateway('sk-responses-failedcodes-0001'));
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), alpha?.close()]);
});

beforeEach(() => resetFakes(openai, alpha));

const body = (model: string) => ({ model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], provider: { order: ['up-responses', 'alpha'] } });

/** The error the Anthropic SDK throws for one call, streamed or not, with the gateway's generation id. */
async function failure(model: string, stream: boolean): Promise<InstanceType<typeof Anthropic.APIError>> {
  const client = anthropicClient(gateway);
  const params = { ...body(model), stream } as unknown as Anthropic.MessageCreateParamsNonStreaming;
  const caught = await client.messages.create(params).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(Anthropic.APIError);
  return caught as InstanceType<typeof Anthropic.APIError>;
}

const modes = [
  { mode: 'a JSON body with status failed', stream: false, failed: failedJson },
  { mode: 'a stream ending in response.failed before output', stream: true, failed: failedStream },
];

const SERVER_ERROR = { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' };
const RATE_LIMITED = { code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-test on tokens per min (TPM): Limit 30000, Used 30000.' };
const INVALID_PROMPT = { code: 'invalid_prompt', message: 'Invalid prompt: your prompt was flagged as potentially violating our usage policy.' };

describe.each(modes)('$mode', ({ stream, failed }) => {
  it('server_error: a retryable server error (502 api_error), recorded as server_error, charged the vendor usage', async () => {
    openai.enqueue(failed(SERVER_ERROR));
    const error = await failure('test/gpt', stream);
    expect({ status: error.status, type: (error.error as { error?: { type?: string } }).error?.type }).toEqual({ status: 502, type: 'api_error' });
    expect(error.message).not.toMatch(/malformed/i);
    const id = error.headers?.get('x-generation-id') ?? '';
    const record = await generationOf(gateway, id);
    expect(record.attempts).toMatchObject([{ status: 'server_error' }]);
    expect(record.usage).toMatchObject({ input_tokens: 12 });
  });

  it('server_error: the next provider is tried and answers', async () => {
    openai.enqueue(failed(SERVER_ERROR));
    alpha.enqueue(reply.fixture('anthropic-text'));
    const client = anthropicClient(gateway);
    if (stream) {
      const events: string[] = [];
      for await (const event of await client.messages.create({ ...body('test/gpt-or-claude'), stream: true } as unknown as Anthropic.MessageCreateParamsStreaming)) events.push(event.type);
      expect(events.at(-1)).toBe('message_stop');
    } else {
      const message = await client.messages.create(body('test/gpt-or-claude') as unknown as Anthropic.MessageCreateParamsNonStreaming);
      expect(message.stop_reason).toBe('end_turn');
    }
    expect(openai.requests).toHaveLength(1);
    expect(alpha.requests).toHaveLength(1);
  });

  it('rate_limit_exceeded: a 429 rate_limit_error, and the next provider is tried', async () => {
    openai.enqueue(failed(RATE_LIMITED));
    alpha.enqueue(reply.error(429));
    const error = await failure('test/gpt-or-claude', stream);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error.error as { error?: { type?: string } }).error?.type).toBe('rate_limit_error');
    expect(alpha.requests).toHaveLength(1);
  });

  it("invalid_prompt: a 400 invalid_request_error with the vendor's words; no other provider is tried", async () => {
    openai.enqueue(failed(INVALID_PROMPT));
    const error = await failure('test/gpt-or-claude', stream);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error.error as { error?: { type?: string } }).error?.type).toBe('invalid_request_error');
    expect(error.message).toContain('your prompt was flagged as potentially violating our usage policy');
    expect(alpha.requests).toHaveLength(0);
  });
});
