/**
 * The auto-router and the context length over HTTP: the prompt's length a candidate must hold is counted as
 * the context check counts it (an earlier turn's thinking, which Anthropic strips from the window, is not),
 * and with the `context-compression` plugin a conversation longer than every candidate's context is still
 * routed, to be compressed middle-out for the model chosen, as it is for a request naming that model.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, errorMessage, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

// 400 characters: 100 tokens by the gateway's estimate.
const pad = (label: string) => `${label} ${'.'.repeat(399 - label.length)}`;

/** Nine turns of 100 tokens each: 900 tokens, over test/small's context of 600. */
const LONG = ['u0 first question', 'a1', 'u2', 'a3', 'u4', 'a5', 'u6', 'a7', 'u8 last question'].map((label, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: pad(label) }));

/** Three turns of 100 tokens, the assistant's also thinking 2,000 tokens (8,000 characters) before it answered. */
const WITH_EARLIER_THINKING = [
  { role: 'user', content: pad('u0 first question') },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'T'.repeat(8000), signature: 'sig-a1' }, { type: 'text', text: pad('a1') }] },
  { role: 'user', content: pad('u2 last question') },
];

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', upstream)],
      [
        [
          '  test/small:',
          '    context_length: 600',
          '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
          '    endpoints: [{ provider: alpha, model: small, pricing: { input: 1, output: 2 } }]',
        ].join('\n'),
      ],
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clear());

function autoBody(messages: unknown[], plugins: unknown[] = []): Record<string, unknown> {
  return { model: 'switchboard/auto', max_tokens: 100, messages, session_id: randomUUID(), plugins: [{ id: 'auto-router', allowed_models: ['test/*'] }, ...plugins] };
}

function labels(): string[] {
  const messages = (upstream.requests[0]?.body as { messages: { content: unknown }[] }).messages;
  return messages.map((message) => (typeof message.content === 'string' ? (message.content.split(' ')[0] as string) : 'blocks'));
}

describe('the auto-router and the context length', () => {
  it('routes a conversation over every context with context-compression, compressed for the model chosen', async () => {
    const call = await postMessage(gateway, autoBody(LONG, [{ id: 'context-compression' }]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/small');
    expect(upstream.requests).toHaveLength(1);
    expect(labels()[0]).toBe('u0');
    expect(labels().at(-1)).toBe('u8');
    expect(labels().length).toBeLessThan(LONG.length);
    const plugins = (metadataOf(call) as unknown as { plugins: { id: string; messages_removed?: number }[] }).plugins;
    expect(plugins.find((report) => report.id === 'context-compression')?.messages_removed).toBe(LONG.length - labels().length);
  });

  it('still refuses without context-compression a conversation no candidate can hold, before any upstream call', async () => {
    const call = await postMessage(gateway, autoBody(LONG));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toMatch(/auto-router: no candidate model supports a context of ~\d+ tokens$/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('does not count an earlier turn\'s thinking against a candidate\'s context, as the context check does not', async () => {
    const named = await postMessage(gateway, { ...autoBody(WITH_EARLIER_THINKING), model: 'test/small', plugins: undefined });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    upstream.clear();

    const call = await postMessage(gateway, autoBody(WITH_EARLIER_THINKING));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('test/small');
    expect(upstream.requests).toHaveLength(1);
  });
});
