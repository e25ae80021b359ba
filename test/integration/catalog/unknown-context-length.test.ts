/**
 * A model added in the configuration file without `context_length`, as a user adding a local vLLM or Ollama
 * model writes it: the gateway starts, serves the model over HTTP (a fake OpenAI-compatible server on
 * 127.0.0.1), lists it in `GET /models` with an unknown (null) context length, and the auto-router does not
 * hold the unknown length against it even for a long prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { messageBody, postMessage } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeOpenAiChat();
  gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  house-vllm: { family: openai-compatible, auth: none, display_name: House vLLM, base_url: "${upstream.baseURL}" }`,
      'models:',
      '  local/qwen3-8b:',
      '    endpoints:',
      '      - { provider: house-vllm, model: Qwen/Qwen3-8B, pricing: { input: 0, output: 0 } }',
      '',
    ].join('\n'),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('a configured model without context_length', () => {
  it('is served over HTTP', async () => {
    upstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, messageBody('local/qwen3-8b'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ type: 'message', role: 'assistant', model: 'local/qwen3-8b', provider: 'House vLLM' });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.lastRequest()?.body).toMatchObject({ model: 'Qwen/Qwen3-8B' });
  });

  it('is listed by GET /models with an unknown context length', async () => {
    const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
    expect(response.status).toBe(200);
    const list = (await response.json()) as ModelList;
    const model = list.data.find((entry) => entry.id === 'local/qwen3-8b');
    expect(model).toMatchObject({
      name: 'local/qwen3-8b',
      context_length: null,
      endpoints: [{ provider: 'house-vllm', provider_name: 'House vLLM', model: 'Qwen/Qwen3-8B', context_length: null }],
    });
    // Built-in models keep theirs.
    expect(list.data.find((entry) => entry.id === 'anthropic/claude-sonnet-4.5')?.context_length).toBe(200_000);
  });

  it('is not filtered out by the auto-router for a long prompt', async () => {
    upstream.clear();
    upstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, {
      model: 'switchboard/auto',
      max_tokens: 64,
      plugins: [{ id: 'auto-router', allowed_models: ['local/*'] }],
      messages: [{ role: 'user', content: 'Summarise this. '.repeat(20_000) }],
    });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe('local/qwen3-8b');
    expect(upstream.requests).toHaveLength(1);
  });
});
