/**
 * A message thread lives in the Anthropic account that created it. The SDK's tool runner continues a thread
 * with only the new turn, so the session's content hash does not find the provider that served the create:
 * with two Anthropic-format endpoints of a model, a `continue` was routed afresh, reached the other account,
 * was answered `thread_not_found`, and the runner replayed the whole conversation under a new thread (full
 * input cost, every turn). Each answered thread turn now pins its answer's id to its provider and key, and
 * the continue naming that id is sent there only; when that account is out of the plan the gateway answers
 * Anthropic's `thread_not_found` itself, on which the runner replays.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicMessagesFormat,
  anthropicStep,
  reply,
  startFakeUpstream,
  type FakeUpstream,
  type RecordedRequest,
  type ScriptedStep,
  type WireFormat,
} from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const USAGE = { input: 10, output: 5 };
const THREADS_BETA = 'message-threads-2026-08-12';
const LOST = { type: 'error', error: { type: 'not_found_error', message: 'No thread found for previous_message_id.', details: { error_code: 'thread_not_found' } }, request_id: 'req_011Lost' };

interface ThreadBody {
  thread?: { type: string; previous_message_id?: string };
  messages: unknown[];
}

/** A fake Anthropic account that keeps threads: a continue naming an answer it did not give is a 404 `thread_not_found`. */
interface ThreadingAnthropic {
  upstream: FakeUpstream;
  /** Scripts the next answer; its id is one this account can continue from. */
  answer(step: ScriptedStep): void;
  clear(): void;
}

async function startThreadingAnthropic(): Promise<ThreadingAnthropic> {
  const held = new Set<string>();
  const base = anthropicMessagesFormat();
  const format: WireFormat = {
    ...base,
    answerDirectly(request: RecordedRequest) {
      const thread = (request.body as ThreadBody | undefined)?.thread;
      if (request.operation === 'messages' && thread?.type === 'continue' && !held.has(thread.previous_message_id ?? '')) return { status: 404, body: LOST };
      return base.answerDirectly?.(request);
    },
  };
  const upstream = await startFakeUpstream(format, {});
  return {
    upstream,
    answer(step) {
      const scripted = anthropicStep(step, {});
      held.add(((scripted.json as { body: { id: string } }).body as { id: string }).id);
      upstream.enqueue(scripted);
    },
    clear() {
      upstream.clear();
    },
  };
}

let cheap: ThreadingAnthropic;
let dear: ThreadingAnthropic;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  cheap = await startThreadingAnthropic();
  dear = await startThreadingAnthropic();
  const catalogYaml = [
    'providers:',
    `  anthropic: { base_url: "${cheap.upstream.url}", api_key: "sk-ant-cheap-0001" }`,
    `  anthropic-two: { family: anthropic, base_url: "${dear.upstream.url}", api_key: "sk-ant-dear-0001" }`,
    'models:',
    '  test/claude:',
    '    name: Threads model',
    '    context_length: 200000',
    '    capabilities: { tools: true, thinking: true, vision: true }',
    '    endpoints:',
    '      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: 1, output: 2 } }',
    '      - { provider: anthropic-two, model: claude-sonnet-4-5, pricing: { input: 2, output: 4 } }',
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await dear?.upstream.close();
  await cheap?.upstream.close();
});
beforeEach(() => {
  cheap.clear();
  dear.clear();
});

const weather = betaTool({
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  run: (input) => `sunny in ${(input as { city: string }).city}`,
});

/** The tool runner with its defaults (it threads), asking for the cheapest endpoint first. */
function runWeatherLoop(question: string, stream: boolean) {
  // `provider` is the gateway's routing field: the SDK sends body fields it does not know as they are.
  const params = { model: 'test/claude', max_tokens: 256, messages: [{ role: 'user' as const, content: question }], tools: [weather], provider: { sort: 'price' } };
  return stream ? client.beta.messages.toolRunner({ ...params, stream: true }).runUntilDone() : client.beta.messages.toolRunner(params).runUntilDone();
}

function threadOf(request: RecordedRequest | undefined): ThreadBody['thread'] {
  return (request?.body as ThreadBody | undefined)?.thread;
}

describe('a thread created after a fallback to the second Anthropic account', () => {
  it.each([false, true])('is continued on that account every turn, with only the new messages (stream %s)', async (stream) => {
    // The cheap account is overloaded for the create: the dear one creates the thread.
    cheap.upstream.enqueue(reply.error(529));
    dear.answer({ calls: [{ name: 'get_weather', input: { city: 'Paris' } }], usage: USAGE });
    dear.answer({ calls: [{ name: 'get_weather', input: { city: 'Lyon' } }], usage: USAGE });
    dear.answer({ text: 'Sunny in Paris and Lyon.', usage: USAGE });

    const final = await runWeatherLoop(`Weather in Paris and Lyon? (stream ${stream})`, stream);

    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny in Paris and Lyon.' })]);
    // The cheap account saw only the create it failed; no continue was sent where the thread is not.
    expect(cheap.upstream.requests).toHaveLength(1);
    expect(threadOf(cheap.upstream.requests[0])).toEqual({ type: 'create' });
    // The dear account: one create, then continues of its own answers, each with the new turn only.
    expect(dear.upstream.requests.map((request) => threadOf(request)?.type)).toEqual(['create', 'continue', 'continue']);
    for (const request of dear.upstream.requests.slice(1)) {
      expect((request.body as ThreadBody).messages).toHaveLength(1);
      expect(request.headers['anthropic-beta']).toContain(THREADS_BETA);
    }
  });
});

describe('a continue whose account the request leaves out', () => {
  it('is answered thread_not_found by the gateway and sent to no account', async () => {
    cheap.upstream.enqueue(reply.error(529));
    dear.answer({ calls: [{ name: 'get_weather', input: { city: 'Oslo' } }], usage: USAGE });
    const runner = client.beta.messages.toolRunner({
      model: 'test/claude',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [weather],
      provider: { sort: 'price' },
    } as Parameters<typeof client.beta.messages.toolRunner>[0]);
    let answered: string | undefined;
    // The runner's first turn only (the create): leaving the loop sends nothing more.
    for await (const message of runner) {
      answered = (message as { id: string }).id;
      break;
    }
    const created = dear.upstream.requests.length;
    expect(created).toBe(1);

    // The thread's account is out of this request's plan (`provider.only`): the gateway answers itself.
    const error = await client.beta.messages
      .create({
        model: 'test/claude',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'And tomorrow?' }],
        thread: { type: 'continue', previous_message_id: answered as string },
        betas: [THREADS_BETA],
        provider: { only: ['anthropic'] },
      } as Parameters<typeof client.beta.messages.create>[0])
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.Messages.ThreadNotFoundError);
    const apiError = error as InstanceType<typeof Anthropic.Messages.ThreadNotFoundError>;
    expect(apiError.status).toBe(404);
    expect(apiError.errorCode).toBe('thread_not_found');
    expect(cheap.upstream.requests).toHaveLength(1);
    expect(dear.upstream.requests).toHaveLength(created);
  });
});
