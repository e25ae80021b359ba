/**
 * The in-process bound of thread pins, over HTTP, with a gateway without Redis that keeps 2 session pins
 * (`SWITCHBOARD_STICKY_PIN_MAX_ENTRIES`) and 2 thread pins (`SWITCHBOARD_THREAD_PIN_MAX_ENTRIES`). Before,
 * thread pins and session pins shared one 100,000-entry store: session traffic pushed thread pins out (the
 * least recently written first), and the owner's continue, finding no pin, was answered the gateway's 404
 * `thread_not_found` (no shared key serves a continue without a pin) instead of reaching the shared key that
 * holds the thread. Now thread pins have their own bound: sessions never evict them, and past their bound the
 * least recently written thread pin is the one forgotten.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessagesFormat, anthropicStep, startFakeUpstream, type FakeUpstream, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, apiKeyOf, catalogYaml, modelYaml, SHARED_KEYS } from './routing-support.ts';

const THREADS_BETA = 'message-threads-2026-08-12';
const USAGE = { input: 20, output: 5 };

let alpha: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  alpha = await startFakeUpstream(anthropicMessagesFormat(), {});
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])]),
    env: { SWITCHBOARD_STICKY_PIN_MAX_ENTRIES: '2', SWITCHBOARD_THREAD_PIN_MAX_ENTRIES: '2' },
  });
  client = anthropicClient(gateway);
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
});
beforeEach(() => alpha.clear());

/** Scripts the next answer; returns its id. */
function answer(step: ScriptedStep): string {
  const scripted = anthropicStep(step, {});
  alpha.enqueue(scripted);
  return (scripted.json as { body: { id: string } }).body.id;
}

async function send(content: string, thread?: Record<string, unknown>): Promise<Anthropic.Beta.BetaMessage> {
  const params = { model: 'test/claude', max_tokens: 64, messages: [{ role: 'user', content }], betas: [THREADS_BETA], ...(thread ? { thread } : {}) } as never;
  return client.beta.messages.create(params);
}

/** A new thread on the shared key (the caller has no key of its own): the id the client continues from. */
async function newThread(content: string): Promise<string> {
  const id = answer({ text: `Noted: ${content}`, usage: USAGE });
  expect((await send(content, { type: 'create' })).id).toBe(id);
  // The pin is written once the answer is out: a session request right after must come after it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return id;
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (caught: unknown) => caught,
  );
}

describe('thread pins under their own in-process bound', () => {
  it('are not pushed out by session traffic past the session pins’ bound', async () => {
    const id = await newThread('the code word is heron');
    for (const opening of ['first session', 'second session', 'third session', 'fourth session']) {
      answer({ text: 'Hello.', usage: USAGE });
      await send(opening);
    }
    alpha.clear();
    answer({ text: 'Heron.', usage: USAGE });

    const next = await send('What was the code word?', { type: 'continue', previous_message_id: id });

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Heron.' })]);
    expect(alpha.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });

  it('past their own bound, forget the least recently written first', async () => {
    const oldest = await newThread('one');
    const second = await newThread('two');
    await newThread('three');
    alpha.clear();
    answer({ text: 'Two.', usage: USAGE });

    const lost = await failure(send('Go on.', { type: 'continue', previous_message_id: oldest }));
    expect(lost).toBeInstanceOf(Anthropic.Messages.ThreadNotFoundError);
    expect(alpha.requests).toHaveLength(0);

    const kept = await send('Go on.', { type: 'continue', previous_message_id: second });
    expect(kept.content).toEqual([expect.objectContaining({ type: 'text', text: 'Two.' })]);
    expect(alpha.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });
});
