/**
 * Anthropic's 1M-token context window over HTTP: a prompt past a model's 200K context length, sent with the
 * `context-1m-2025-08-07` beta as the Anthropic SDK's beta client (and Claude Code for its `[1m]` models) sends
 * it, reaches an Anthropic upstream priced for long context, beta header and all, instead of the gateway's
 * context-length 400. Without the beta, or on a model without long-context prices, the 400 stands.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { errorMessage, postMessage, resetFakes } from './routing-support.ts';

const SHARED_KEY = 'sk-ant-shared-long-context-0001';
const LONG_CONTEXT_BETA = 'context-1m-2025-08-07';
// About 250,000 tokens by the gateway's estimate (four characters a token): past 200K, well within 1M.
const LONG_PROMPT = 'word '.repeat(200_000);

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  // The built-in catalog: Claude Sonnet 4.5 has long-context prices, Claude Haiku 4.5 has none.
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "${SHARED_KEY}" }\n` });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => resetFakes(upstream));

function longRequest(model: string): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: LONG_PROMPT }] };
}

describe('the 1M-token context beta', () => {
  it('lets a prompt past 200K tokens from the Anthropic SDK reach Anthropic, beta header and all', async () => {
    upstream.enqueue(reply.fixture('anthropic-text'));
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0, timeout: 20_000 });

    const message = await client.beta.messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 64,
      messages: [{ role: 'user', content: LONG_PROMPT }],
      betas: [LONG_CONTEXT_BETA],
    });

    expect(message.content[0]?.type).toBe('text');
    expect(upstream.requests).toHaveLength(1);
    const sent = upstream.lastRequest();
    expect(String(sent.headers['anthropic-beta']).split(',')).toContain(LONG_CONTEXT_BETA);
    expect(sent.body).toMatchObject({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: LONG_PROMPT }] });
  });

  it('is found among other flags of the header', async () => {
    upstream.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, longRequest('anthropic/claude-sonnet-4.5'), { 'anthropic-beta': `interleaved-thinking-2025-05-14, ${LONG_CONTEXT_BETA}` });

    expect(call.status, JSON.stringify(call.body).slice(0, 400)).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('without the beta, the prompt is still held to the 200K context length', async () => {
    const call = await postMessage(gateway, longRequest('anthropic/claude-sonnet-4.5'), { 'anthropic-beta': 'interleaved-thinking-2025-05-14' });

    expect(call.status).toBe(400);
    // Anthropic's own words first, which Claude Code looks for to offer compacting the conversation.
    expect(errorMessage(call)).toMatch(/prompt is too long: about \d+ tokens \(estimated\) > 200000 maximum/);
    expect(errorMessage(call)).toContain('does not fit the context length of 200000 tokens of anthropic/claude-sonnet-4.5');
    expect(upstream.requests).toHaveLength(0);
  });

  it("does not count earlier turns' thinking, which Anthropic strips from the context window", async () => {
    upstream.enqueue(reply.fixture('anthropic-text'));
    // About 150,000 tokens of thinking in an earlier turn and 100,000 of prompt now: 250,000 with the
    // thinking, 100,000 in the window. The current turn's tool-use cycle keeps its thinking, counted.
    const thinking = { type: 'thinking', thinking: 'hmm '.repeat(150_000), signature: 'c2lnbmF0dXJl' };
    const messages = [
      { role: 'user', content: 'Plan the refactor.' },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'Here is the plan.' }] },
      { role: 'user', content: 'word '.repeat(80_000) },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'ok', signature: 'c2ln' }, { type: 'tool_use', id: 'toolu_01', name: 'read', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'file a' }] },
    ];
    const tools = [{ name: 'read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];
    const call = await postMessage(gateway, { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages, tools });

    expect(call.status, JSON.stringify(call.body).slice(0, 400)).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('on a model without long-context prices, the prompt is still held to its context length', async () => {
    const call = await postMessage(gateway, longRequest('anthropic/claude-haiku-4.5'), { 'anthropic-beta': LONG_CONTEXT_BETA });

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toContain('does not fit the context length of 200000 tokens of anthropic/claude-haiku-4.5');
    expect(upstream.requests).toHaveLength(0);
  });
});
