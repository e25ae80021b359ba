/**
 * Over HTTP, a message thread (`thread`) through the gateway's tool loop, with two Anthropic accounts of one
 * provider: the caller's BYOK key and the gateway's shared key, each holding its own threads (the fake answers
 * a `continue` naming an answer its key did not give with Anthropic's 404 `thread_not_found`). The loop's
 * later steps continue the thread from the previous step with only the tool results, on the account that
 * holds it; the client is given the first step's id, and its `continue` naming that id reaches the account
 * that holds the thread and resumes from the loop's last step. Before, every step sent the client's `create`
 * again with the whole conversation, the answer's id was pinned nowhere, and the continue went to the caller's
 * key first, which answered `thread_not_found`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, apiKeyOf, catalogYaml, createCredential, deleteCredential, modelYaml, SHARED_KEYS } from '#test/integration/routing/routing-support.ts';
import { startThreadingUpstream, threadLost, type ThreadBody, type ThreadingUpstream } from '#test/integration/routing/threading-upstream.ts';

const BYOK_KEY = 'sk-alpha-customer-thread-key-7f3a';
const THREADS_BETA = 'message-threads-2026-08-12';
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };
const USAGE = { input: 100, output: 10 };
const LOST = threadLost('req_011LoopLost');

let alpha: ThreadingUpstream;
let gateway: TestGateway;
let client: Anthropic;
let credentialId: string | undefined;

beforeAll(async () => {
  alpha = await startThreadingUpstream(LOST);
  const providers = [anthropicProviderYaml('alpha', alpha.upstream)];
  const models = [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])];
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, models) });
  client = anthropicClient(gateway);
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.upstream.close();
});
beforeEach(async () => {
  alpha.upstream.clear();
  // The caller's own key for the provider: the plan tries it before the shared key.
  credentialId = await createCredential(gateway, { provider: 'alpha', key: BYOK_KEY });
});
afterEach(async () => {
  if (credentialId) await deleteCredential(gateway, credentialId);
  credentialId = undefined;
});

function threadOf(request: RecordedRequest | undefined): ThreadBody['thread'] {
  return (request?.body as ThreadBody | undefined)?.thread;
}

function messagesOf(request: RecordedRequest | undefined): ThreadBody['messages'] {
  return (request?.body as ThreadBody | undefined)?.messages ?? [];
}

/** One thread turn through the SDK, JSON or stream: the message the client reads. */
async function send(content: string, thread: Record<string, unknown>, stream: boolean): Promise<Anthropic.Beta.BetaMessage> {
  const params = { model: 'test/claude', max_tokens: 256, messages: [{ role: 'user', content }], tools: [DATETIME], thread, betas: [THREADS_BETA] } as never;
  if (!stream) return client.beta.messages.create(params);
  return client.beta.messages.stream(params).finalMessage();
}

describe.each([false, true])('a thread through the tool loop (stream %s)', (stream) => {
  it('continues from step to step on the account that holds it, and the client’s continue reaches that account', async () => {
    // The caller's key is overloaded for the create: the shared key's account creates the thread.
    alpha.upstream.enqueue(reply.error(529));
    const first = alpha.answer({ text: 'Checking the clock.', calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' }, id: 'toolu_01ModelOwnId' }], usage: USAGE }, SHARED_KEYS.alpha);
    const last = alpha.answer({ text: 'It is afternoon in Paris.', usage: USAGE }, SHARED_KEYS.alpha);

    const answer = await send('What time is it in Paris?', { type: 'create' }, stream);

    expect(answer.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text']);
    expect(answer.id).toBe(first);
    const [failed, created, continued] = alpha.upstream.requests;
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([BYOK_KEY, SHARED_KEYS.alpha, SHARED_KEYS.alpha]);
    expect([threadOf(failed), threadOf(created)]).toEqual([{ type: 'create' }, { type: 'create' }]);
    // Step 2 continues the thread step 1 created, sending only the tool result, by the model's own call id.
    expect(threadOf(continued)).toEqual({ type: 'continue', previous_message_id: first });
    const turns = messagesOf(continued);
    expect(turns).toHaveLength(1);
    expect(turns[0]?.role).toBe('user');
    expect(turns[0]?.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01ModelOwnId' })]);

    // The client continues from the id it was given: the shared key's account holds the thread, from step 2 on.
    alpha.upstream.clear();
    alpha.answer({ text: 'Still afternoon.', usage: USAGE }, SHARED_KEYS.alpha);
    const next = await send('And now?', { type: 'continue', previous_message_id: answer.id }, stream);

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Still afternoon.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
    expect(threadOf(alpha.upstream.requests[0])).toEqual({ type: 'continue', previous_message_id: last });
    expect(messagesOf(alpha.upstream.requests[0])).toEqual([{ role: 'user', content: 'And now?' }]);
  });

  it('stays on the thread’s account when a later step fails there, never sending the continue elsewhere', async () => {
    alpha.upstream.enqueue(reply.error(529));
    alpha.answer({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: USAGE }, SHARED_KEYS.alpha);
    alpha.upstream.enqueue(reply.error(529));

    const error = await send('What time is it?', { type: 'create' }, stream).then(
      () => null,
      (caught: unknown) => caught,
    );

    // JSON: the step's failure is the answer; a stream has started, so it ends with an in-band error.
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([BYOK_KEY, SHARED_KEYS.alpha, SHARED_KEYS.alpha]);
    expect(threadOf(alpha.upstream.requests[2])?.type).toBe('continue');
  });
});
