/**
 * Over HTTP, with the real Anthropic SDK: a refusal in a step of the server-side tool loop moves on to the
 * next model in `fallbacks`, and the answer (JSON and stream alike) marks the hop with Anthropic's `fallback`
 * block where the step's content begins, as a request without gateway tools does. `test/main` runs on Alpha,
 * `test/backup` on Beta; the gateway's `datetime` tool needs no server.
 */
import { randomUUID } from 'node:crypto';
import type { BetaMessage } from '@anthropic-ai/sdk/resources/beta/messages';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, WITH_METADATA, type RoutingMetadata } from '#test/integration/routing/routing-support.ts';

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [modelYaml('test/main', [{ provider: 'alpha', model: 'up-main-alpha', price: [1, 2] }]), modelYaml('test/backup', [{ provider: 'beta', model: 'up-backup-beta', price: [1, 2] }])],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});

beforeEach(() => {
  alpha.clear();
  beta.clear();
});

const REFUSAL = { text: 'I', stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber', explanation: 'Not this one.' }, usage: { input: 40, output: 1 } } as const;
const HOP = { type: 'fallback', from: { model: 'test/main' }, to: { model: 'test/backup' }, trigger: { type: 'refusal', category: 'cyber' } };

type Metadata = Omit<RoutingMetadata, 'attempts'> & { attempts: (RoutingMetadata['attempts'][number] & { step?: number })[] };

// A session per request, so that no sticky pin from an earlier test reorders the plan.
async function ask(stream: boolean): Promise<BetaMessage & { gateway_metadata?: Metadata }> {
  const client = anthropicClient(gateway, WITH_METADATA);
  const request = {
    model: 'test/main',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'What time is it in Paris?' }],
    tools: [{ type: 'gateway:datetime' }] as never,
    fallbacks: [{ model: 'test/backup' }],
    session_id: randomUUID(),
  } as Parameters<typeof client.beta.messages.create>[0] & { stream?: false };
  if (!stream) return (await client.beta.messages.create(request)) as BetaMessage & { gateway_metadata?: Metadata };
  const events = client.beta.messages.stream(request);
  let metadata: Metadata | undefined;
  events.on('streamEvent', (event) => {
    const extra = event as unknown as { type: string; gateway_metadata?: Metadata };
    if (extra.type === 'message_stop' && extra.gateway_metadata) metadata = extra.gateway_metadata;
  });
  const message = await events.finalMessage();
  return metadata ? { ...message, gateway_metadata: metadata } : message;
}

const attemptsOf = (message: { gateway_metadata?: Metadata }) => (message.gateway_metadata?.attempts ?? []).map((attempt) => `${attempt.step}:${attempt.model}:${attempt.status}`);

describe('a refusal in a tool-loop step moves on with a fallback block', () => {
  it.each([false, true])('in a later step: the block comes after the earlier steps (stream: %s)', async (stream) => {
    alpha.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }), anthropicStep(REFUSAL));
    beta.enqueue(anthropicStep({ text: 'It is noon in Paris.', usage: { input: 60, output: 6 } }));
    const message = await ask(stream);

    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text', 'fallback', 'text']);
    expect(message.content[2]).toMatchObject({ type: 'text', text: 'I' });
    expect(message.content[3]).toEqual(HOP);
    expect(message.content[4]).toMatchObject({ type: 'text', text: 'It is noon in Paris.' });
    expect(message.stop_reason).toBe('end_turn');
    expect(alpha.requests).toHaveLength(2);
    expect(beta.requests).toHaveLength(1);
    // The next model is asked the refused step again: the conversation with the first step's tool result.
    const sent = beta.requests[0]?.body as { messages: { role: string }[] };
    expect(sent.messages.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(attemptsOf(message)).toEqual(['1:test/main:success', '2:test/main:refusal', '2:test/backup:success']);
  });

  it.each([false, true])('in the first step: the block comes first, and the next model runs the rest of the loop (stream: %s)', async (stream) => {
    alpha.enqueue(anthropicStep(REFUSAL));
    beta.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } }),
      anthropicStep({ text: 'It is noon in Paris.', usage: { input: 60, output: 6 } }),
    );
    const message = await ask(stream);

    expect(message.content.map((block) => block.type)).toEqual(['text', 'fallback', 'server_tool_use', 'datetime_tool_result', 'text']);
    expect(message.content[1]).toEqual(HOP);
    expect(message.stop_reason).toBe('end_turn');
    expect(alpha.requests).toHaveLength(1);
    expect(beta.requests).toHaveLength(2);
    // The refused model's words are not part of the conversation the next model continues.
    const second = beta.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages[1]?.content)).not.toContain('"text":"I"');
    expect(attemptsOf(message)).toEqual(['1:test/main:refusal', '1:test/backup:success', '2:test/backup:success']);
  });

  it.each([false, true])('a refusal no later model answers is the answer, without a block (stream: %s)', async (stream) => {
    alpha.enqueue(anthropicStep(REFUSAL));
    beta.enqueue(reply.error(500));
    const message = await ask(stream);

    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect(message.stop_reason).toBe('refusal');
    expect(attemptsOf(message)).toEqual(['1:test/main:refusal', '1:test/backup:server_error']);
  });

  it.each([false, true])('every model refusing: the last refusal is the answer, after the hop (stream: %s)', async (stream) => {
    alpha.enqueue(anthropicStep(REFUSAL));
    beta.enqueue(anthropicStep(REFUSAL));
    const message = await ask(stream);

    expect(message.content.map((block) => block.type)).toEqual(['text', 'fallback', 'text']);
    expect(message.stop_reason).toBe('refusal');
    expect(attemptsOf(message)).toEqual(['1:test/main:refusal', '1:test/backup:refusal']);
  });
});
