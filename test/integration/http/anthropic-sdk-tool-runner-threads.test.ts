/**
 * The Anthropic SDK's tool runner (`client.beta.messages.toolRunner()`) with its default settings threads the
 * conversation (Anthropic's message threads: `thread: {type: "create"}`, then `continue` with only the new
 * turn). Only Anthropic stores a thread, so a translated vendor refuses `thread`; the 400 carries Anthropic's
 * `thread_unsupported_request` code, on which the runner sends the whole conversation without `thread` and the
 * loop completes. Before, the 400 carried no such code and the runner failed on its first turn. On an
 * Anthropic-format upstream the thread and its beta pass through untouched, and its thread rejections (a thread
 * it no longer holds) reach the SDK with their status and `error_code`, on which the runner replays the whole
 * conversation under a new thread; before, a lost thread was a 404 tried elsewhere and answered as a 502.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { modelYaml } from '#test/integration/providers-e2e/e2e-target.ts';

const PRICING = '{ input: 1, output: 2 }';
const USAGE = { input: 10, output: 5 };
const THREADS_BETA = 'message-threads-2026-08-12';

let anthropic: FakeUpstream;
let chat: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  anthropic = await startFakeAnthropic({});
  chat = await startFakeOpenAiChat({});
  const catalogYaml = [
    'providers:',
    `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-threads-0001" }`,
    `  openai: { base_url: "${chat.baseURL}", api_key: "sk-threads-0001", family: openai-chat }`,
    'models:',
    modelYaml({ slug: 'test/on-anthropic', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5', pricing: PRICING }),
    modelYaml({ slug: 'test/on-chat', provider: 'openai', upstreamModel: 'gpt-4.1-nano', pricing: PRICING }),
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  // Default settings but the address (retries off, so a 400 the runner does not recover from fails at once).
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await chat?.close();
  await anthropic?.close();
});

const weather = betaTool({
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  run: (input) => `sunny in ${(input as { city: string }).city}`,
});

/** Runs the SDK's tool runner, with its defaults, to its last message. */
function runWeatherLoop(model: string, stream: boolean) {
  const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
  return stream
    ? client.beta.messages.toolRunner({ model, max_tokens: 256, messages, tools: [weather], stream: true }).runUntilDone()
    : client.beta.messages.toolRunner({ model, max_tokens: 256, messages, tools: [weather] }).runUntilDone();
}

describe('the tool runner on a vendor reached by translation', () => {
  it.each([false, true])('completes the loop with the whole conversation each turn (stream %s)', async (stream) => {
    chat.clear();
    chat.enqueue(openAiChatStep({ calls: [{ name: 'get_weather', input: { city: 'Paris' } }], usage: USAGE }), openAiChatStep({ text: 'Sunny in Paris.', usage: USAGE }));
    const final = await runWeatherLoop('test/on-chat', stream);
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny in Paris.' })]);
    expect(chat.requests).toHaveLength(2);
    const second = chat.requests[1]?.body as { messages: { role: string }[] };
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('answers `thread` with Anthropic’s thread_unsupported_request code', async () => {
    chat.clear();
    const error = await client.beta.messages
      .create({ model: 'test/on-chat', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], thread: { type: 'create' }, betas: [THREADS_BETA] })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.Messages.ThreadUnsupportedRequestError);
    const apiError = error as InstanceType<typeof Anthropic.Messages.ThreadUnsupportedRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.errorCode).toBe('thread_unsupported_request');
    expect(apiError.message).toContain('thread is not supported by OpenAI Chat Completions');
    expect(apiError.requestID).toMatch(/^gen_/);
    expect(chat.requests).toHaveLength(0);
  });
});

describe('the tool runner on an Anthropic-format upstream', () => {
  it('passes the thread and its beta through, continuing with only the new turn', async () => {
    anthropic.clear();
    anthropic.enqueue(anthropicStep({ calls: [{ name: 'get_weather', input: { city: 'Paris' } }], usage: USAGE }), anthropicStep({ text: 'Sunny in Paris.', usage: USAGE }));
    const final = await runWeatherLoop('test/on-anthropic', false);
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny in Paris.' })]);
    const [first, second] = anthropic.requests;
    expect(first?.headers['anthropic-beta']).toContain(THREADS_BETA);
    expect((first?.body as { thread?: unknown }).thread).toEqual({ type: 'create' });
    const continued = second?.body as { thread?: { type: string; previous_message_id?: string }; messages: unknown[] };
    expect(continued.thread?.type).toBe('continue');
    expect(continued.thread?.previous_message_id).toMatch(/^msg_/);
    expect(continued.messages).toHaveLength(1);
  });
});

describe('a thread the Anthropic-format upstream no longer holds', () => {
  const lost = { type: 'error', error: { type: 'not_found_error', message: 'No thread found for previous_message_id.', details: { error_code: 'thread_not_found' } }, request_id: 'req_011Lost' };

  it('reaches the SDK as ThreadNotFoundError, sent to no other attempt', async () => {
    anthropic.clear();
    // A thread the gateway pinned to the upstream's account (a continue without a pin is never sent to a
    // shared key: the gateway answers it itself, see test/integration/routing/thread-owner.test.ts).
    anthropic.enqueue(anthropicStep({ text: 'Hello.', usage: USAGE }), reply.error(404, { body: lost }));
    const created = await client.beta.messages.create({ model: 'test/on-anthropic', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], thread: { type: 'create' }, betas: [THREADS_BETA] });
    const error = await client.beta.messages
      .create({ model: 'test/on-anthropic', max_tokens: 64, messages: [{ role: 'user', content: 'Still there?' }], thread: { type: 'continue', previous_message_id: created.id }, betas: [THREADS_BETA] })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.Messages.ThreadNotFoundError);
    const apiError = error as InstanceType<typeof Anthropic.Messages.ThreadNotFoundError>;
    expect(apiError.status).toBe(404);
    expect(apiError.errorCode).toBe('thread_not_found');
    expect(apiError.message).toContain('No thread found for previous_message_id.');
    expect(apiError.requestID).toMatch(/^gen_/);
    expect(anthropic.requests).toHaveLength(2);
  });

  it.each([false, true])('lets the tool runner replay the conversation under a new thread (stream %s)', async (stream) => {
    anthropic.clear();
    anthropic.enqueue(
      anthropicStep({ calls: [{ name: 'get_weather', input: { city: 'Paris' } }], usage: USAGE }),
      reply.error(404, { body: lost }),
      anthropicStep({ text: 'Sunny in Paris.', usage: USAGE }),
    );
    const final = await runWeatherLoop('test/on-anthropic', stream);
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny in Paris.' })]);
    expect(anthropic.requests).toHaveLength(3);
    const replay = anthropic.requests[2]?.body as { thread?: unknown; messages: unknown[] };
    expect(replay.thread).toEqual({ type: 'create' });
    expect(replay.messages).toHaveLength(3);
  });
});
