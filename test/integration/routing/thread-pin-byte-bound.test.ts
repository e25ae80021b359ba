/**
 * The byte bound of thread pins over HTTP (`SWITCHBOARD_THREAD_PIN_MAX_BYTES`), with a gateway without Redis
 * bounded so tightly that no pin fits: a pin larger than the whole bound is not kept, so the owner's continue
 * is answered the gateway's 404 `thread_not_found` without an upstream call, where a gateway with the default
 * bound (the suite's second gateway) serves the same continue. Eviction order and the Redis script are covered
 * by test/unit/routing/sticky/pin-byte-bound.test.ts.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessagesFormat, anthropicStep, startFakeUpstream, type FakeUpstream, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, apiKeyOf, catalogYaml, modelYaml, SHARED_KEYS } from './routing-support.ts';

const THREADS_BETA = 'message-threads-2026-08-12';
const USAGE = { input: 20, output: 5 };

let alpha: FakeUpstream;
let bounded: TestGateway;
let unbounded: TestGateway;

beforeAll(async () => {
  alpha = await startFakeUpstream(anthropicMessagesFormat(), {});
  const catalog = catalogYaml([anthropicProviderYaml('alpha', alpha)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])]);
  bounded = await startTestGateway({ catalogYaml: catalog, env: { SWITCHBOARD_THREAD_PIN_MAX_BYTES: '16' } });
  unbounded = await startTestGateway({ catalogYaml: catalog });
});
afterAll(async () => {
  await bounded?.close();
  await unbounded?.close();
  await alpha?.close();
});

function answer(step: ScriptedStep): string {
  const scripted = anthropicStep(step, {});
  alpha.enqueue(scripted);
  return (scripted.json as { body: { id: string } }).body.id;
}

async function send(client: Anthropic, content: string, thread: Record<string, unknown>): Promise<Anthropic.Beta.BetaMessage> {
  const params = { model: 'test/claude', max_tokens: 64, messages: [{ role: 'user', content }], betas: [THREADS_BETA], thread } as never;
  return client.beta.messages.create(params);
}

/** Opens a thread and continues it on `gateway`: the continue's answer, or what it threw. */
async function openAndContinue(gateway: TestGateway): Promise<unknown> {
  const client = anthropicClient(gateway);
  alpha.clear();
  const id = answer({ text: 'Noted.', usage: USAGE });
  expect((await send(client, 'the code word is heron', { type: 'create' })).id).toBe(id);
  await new Promise((resolve) => setTimeout(resolve, 20));
  alpha.clear();
  answer({ text: 'Heron.', usage: USAGE });
  return send(client, 'What was the code word?', { type: 'continue', previous_message_id: id }).catch((caught: unknown) => caught);
}

describe('thread pins under a byte bound', () => {
  it('keep no pin larger than the bound: the continue is thread_not_found, with no upstream call', async () => {
    const outcome = await openAndContinue(bounded);
    expect(outcome).toBeInstanceOf(Anthropic.Messages.ThreadNotFoundError);
    expect(alpha.requests).toHaveLength(0);
  });

  it('with the default bound keep the pin: the same continue reaches the shared key', async () => {
    const outcome = (await openAndContinue(unbounded)) as Anthropic.Beta.BetaMessage;
    expect(outcome.content).toEqual([expect.objectContaining({ type: 'text', text: 'Heron.' })]);
    expect(alpha.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
  });
});
