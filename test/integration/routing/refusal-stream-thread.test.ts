/**
 * A message thread created by a stream whose first model refused, over HTTP with the Anthropic SDK: the stream
 * goes on under the refused model's `message_start` (its id is the one the client is given), but the thread
 * that holds the answer is the serving model's, in the serving account, under that model's message id. A
 * `continue` naming the id the client was given resumes there (as a JSON answer, whose id is the serving
 * model's, does), not on the refused account, nor as a continue with no pin (`thread_not_found`). Model
 * `test/main` is served by the Cheap account, `test/backup` by the Dear one; each fake account continues only
 * the answers it gave. A plain stream and a tool loop's alike.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessagesFormat, anthropicStep, startFakeUpstream, type FakeUpstream, type RecordedRequest, type ScriptedStep, type WireFormat } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const USAGE = { input: 10, output: 5 };
const THREADS_BETA = 'message-threads-2026-08-12';
const LOST = { type: 'error', error: { type: 'not_found_error', message: 'No thread found for previous_message_id.', details: { error_code: 'thread_not_found' } }, request_id: 'req_011Lost' };

interface ThreadBody {
  thread?: { type: string; previous_message_id?: string };
}

/** A fake Anthropic account that keeps threads: a continue naming an answer it did not give is a 404 `thread_not_found`. */
interface ThreadingAnthropic {
  upstream: FakeUpstream;
  /** Scripts the next answer; returns its id, one this account can continue from. */
  answer(step: ScriptedStep): string;
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
      const id = (scripted.json as { body: { id: string } }).body.id;
      held.add(id);
      upstream.enqueue(scripted);
      return id;
    },
  };
}

let cheap: ThreadingAnthropic;
let dear: ThreadingAnthropic;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  [cheap, dear] = await Promise.all([startThreadingAnthropic(), startThreadingAnthropic()]);
  const model = (slug: string, provider: string) =>
    [`  ${slug}:`, `    name: ${slug}`, '    context_length: 200000', '    capabilities: { tools: true, thinking: true, vision: true }', '    endpoints:', `      - { provider: ${provider}, model: claude-sonnet-4-5, pricing: { input: 1, output: 2 } }`].join('\n');
  const catalogYaml = [
    'providers:',
    `  anthropic: { base_url: "${cheap.upstream.url}", api_key: "sk-ant-cheap-0001" }`,
    `  anthropic-two: { family: anthropic, base_url: "${dear.upstream.url}", api_key: "sk-ant-dear-0001" }`,
    'models:',
    model('test/main', 'anthropic'),
    model('test/backup', 'anthropic-two'),
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([cheap?.upstream.close(), dear?.upstream.close()]);
});
beforeEach(() => {
  cheap.upstream.clear();
  dear.upstream.clear();
});

function threadOf(request: RecordedRequest | undefined): ThreadBody['thread'] {
  return (request?.body as ThreadBody | undefined)?.thread;
}

describe('a thread created by a stream whose first model refused', () => {
  it.each([
    ['a plain stream', {}],
    ['a tool loop', { tools: [{ type: 'gateway:datetime' }] }],
  ])("is continued from the id the client was given, on the serving account, from the serving model's answer (%s)", async (_, extra) => {
    cheap.answer({ stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber', explanation: 'No.' }, usage: USAGE });
    const served = dear.answer({ text: 'Hello from the backup.', usage: USAGE });
    const created = await client.beta.messages
      .stream({
        model: 'test/main',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hello there' }],
        thread: { type: 'create' },
        betas: [THREADS_BETA],
        fallbacks: [{ model: 'test/backup' }],
        ...extra,
      } as never)
      .finalMessage();
    expect(created.content.map((block) => block.type)).toEqual(['fallback', 'text']);
    // The client's id is the refused stream's message_start, as in Anthropic's own fallback stream.
    expect(created.id).not.toBe(served);

    dear.answer({ text: 'Still the backup.', usage: USAGE });
    const next = await client.beta.messages.create({
      model: 'test/backup',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'And again?' }],
      thread: { type: 'continue', previous_message_id: created.id },
      betas: [THREADS_BETA],
    } as never);

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Still the backup.' })]);
    expect(cheap.upstream.requests).toHaveLength(1);
    expect(dear.upstream.requests.map((request) => threadOf(request))).toEqual([{ type: 'create' }, { type: 'continue', previous_message_id: served }]);
  });
});
