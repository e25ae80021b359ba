/**
 * xAI retired `grok-4-0709` and `grok-4-fast-reasoning` from its API on 2026-05-15 at 12:00 PT (its migration
 * guide). On the built-in catalog, with xAI pointed at a fake, the Anthropic SDK's request for either model is a
 * NotFoundError naming the retirement and xAI is never called; `GET /models` lists both as retired; and the
 * auto-router, asked for xAI models only, finds none to choose.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, rejection, resetFakes } from '#test/integration/routing/routing-support.ts';

let xai: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  xai = await startFakeOpenAiChat();
  gateway = await startTestGateway({
    catalogYaml: ['providers:', '  ollama: { enabled: false }', `  xai: { base_url: "${xai.url}", api_key: "xai-retired-0001" }`, ''].join('\n'),
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await xai?.close();
});
beforeEach(() => resetFakes(xai));

function ask(model: string, extra: object = {}) {
  return anthropicClient(gateway).messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }], ...extra });
}

describe('the xAI models retired on 2026-05-15', () => {
  it.each([['xai/grok-4'], ['xai/grok-4-fast']])('%s is a NotFoundError naming the retirement, and xAI is never called', async (model) => {
    const error = await rejection(ask(model));
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(error.message).toContain(`${model} was retired on xai on 2026-05-15`);
    expect(xai.requests).toHaveLength(0);
  });

  it('are listed as retired, from 2026-05-15 19:00 UTC', async () => {
    const listed = new Map<string, Record<string, unknown>>();
    for await (const model of anthropicClient(gateway).models.list()) listed.set(model.id, model as unknown as Record<string, unknown>);
    for (const id of ['xai/grok-4', 'xai/grok-4-fast']) {
      expect(listed.get(id), id).toMatchObject({ lifecycle: 'retired', retires_at: '2026-05-15T19:00:00Z' });
    }
  });

  it('are no candidates of the auto-router', async () => {
    const error = await rejection(ask('switchboard/auto', { plugins: [{ id: 'auto-router', allowed_models: ['xai/*'] }] }));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('auto-router: no candidate model');
    expect(xai.requests).toHaveLength(0);
  });
});
