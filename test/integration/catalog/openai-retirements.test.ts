/**
 * OpenAI's retirements on the built-in catalog, with OpenAI pointed at a fake and the gateway's clock on a date:
 * o4-mini shut down on 2026-10-23, so the Anthropic SDK's request for it is a NotFoundError naming that and
 * OpenAI is never called; GPT-5, GPT-5 mini, GPT-5 nano and o3 are deprecated (2026-06-11) and retire on
 * 2026-12-11, which `GET /models` says, and from that day a request for GPT-5 is refused the same way.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, TEST_GATEWAY_DATE, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, rejection, resetFakes } from '#test/integration/routing/routing-support.ts';

const GPT_5_RETIREMENT = Date.parse('2026-12-11T00:00:00Z');
let clock = Date.parse(TEST_GATEWAY_DATE);

let openai: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAiResponses();
  gateway = await startTestGateway({
    catalogYaml: ['providers:', '  ollama: { enabled: false }', `  openai: { base_url: "${openai.url}", api_key: "sk-openai-retired-0001" }`, ''].join('\n'),
    now: () => clock,
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await openai?.close();
});
beforeEach(() => {
  clock = Date.parse(TEST_GATEWAY_DATE);
  resetFakes(openai);
});

function ask(model: string) {
  return anthropicClient(gateway).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
}

async function listed(): Promise<Map<string, Record<string, unknown>>> {
  const models = new Map<string, Record<string, unknown>>();
  for await (const model of anthropicClient(gateway).models.list()) models.set(model.id, model as unknown as Record<string, unknown>);
  return models;
}

describe('OpenAI retirements', () => {
  it('o4-mini, shut down on 2026-10-23, is a NotFoundError naming it, and OpenAI is never called', async () => {
    const error = await rejection(ask('openai/o4-mini'));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.message).toContain('openai/o4-mini was retired on openai on 2026-10-23');
    expect(openai.requests).toHaveLength(0);
  });

  it('GET /models lists GPT-5, GPT-5 mini, GPT-5 nano and o3 as deprecated until 2026-12-11, and o4-mini as retired', async () => {
    const models = await listed();
    for (const id of ['openai/gpt-5', 'openai/gpt-5-mini', 'openai/gpt-5-nano', 'openai/o3']) {
      expect(models.get(id), id).toMatchObject({ lifecycle: 'deprecated', deprecated_at: '2026-06-11T00:00:00Z', retires_at: '2026-12-11T00:00:00Z' });
    }
    expect(models.get('openai/o4-mini')).toMatchObject({ lifecycle: 'retired', retires_at: '2026-10-23T00:00:00Z' });
    expect(models.get('openai/gpt-4.1')).toMatchObject({ lifecycle: 'active', retires_at: null });
  });

  it('from 2026-12-11 a request for GPT-5 is refused, naming the retirement', async () => {
    clock = GPT_5_RETIREMENT;
    const error = await rejection(ask('openai/gpt-5'));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.message).toContain('openai/gpt-5 was retired on openai on 2026-12-11');
    expect(openai.requests).toHaveLength(0);
    expect((await listed()).get('openai/gpt-5')).toMatchObject({ lifecycle: 'retired' });
  });
});
