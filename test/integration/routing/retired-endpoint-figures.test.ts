/**
 * A retired endpoint no longer shapes its model's figures, over HTTP with the Anthropic SDK and the gateway's
 * clock moved across the retirement. `test/retiring` is served cheaply with a 1M window and 128K output by
 * Alpha until 2026-11-30, and dearly with 200K and 64K by Beta after; `test/steady` sits in between on Alpha.
 * Beta's endpoint reads no images (`capabilities: { vision: false }`). From the retirement on, the auto-router
 * prices `test/retiring` at Beta's rates (a trivial prompt, which goes to the cheapest candidate, now goes to
 * `test/steady`; `cost_tier: economy` no longer admits it), no longer offers it for a prompt with an image, and
 * `GET /models` gives its context window, `max_tokens` and `features` as Beta's.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, rejection, resetFakes, upstreamModelOf } from './routing-support.ts';
import { startAnsweringAlpha } from './auto-router-support.ts';

const DAY_BEFORE = Date.parse('2026-11-29T12:00:00Z');
const RETIREMENT_DAY = Date.parse('2026-11-30T00:00:00Z');
let clock = DAY_BEFORE;

const MODELS_YAML = [
  modelYaml('test/steady', [{ provider: 'alpha', model: 'up-steady', price: [1, 3] }]),
  [
    '  test/retiring:',
    '    name: Retiring',
    '    context_length: 1000000',
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    '    endpoints:',
    '      - { provider: alpha, model: up-retiring-alpha, pricing: { input: 0.2, output: 0.6 }, max_output_tokens: 128000, retires_at: "2026-11-30T00:00:00Z" }',
    '      - { provider: beta, model: up-retiring-beta, pricing: { input: 5, output: 15 }, context_length: 200000, max_output_tokens: 64000, capabilities: { vision: false } }',
  ].join('\n'),
];

let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  [alpha, beta] = await Promise.all([startAnsweringAlpha(), startAnsweringAlpha()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)], MODELS_YAML),
    now: () => clock,
  });
  client = anthropicClient(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close()]);
});
beforeEach(() => {
  clock = DAY_BEFORE;
  resetFakes(alpha, beta);
});

/** An auto-routed trivial prompt among the test models, as the SDK sends it with the gateway's plugin field. */
function autoRouted(plugin: Record<string, unknown> = {}) {
  return client.messages.create({
    model: 'switchboard/auto',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello there' }],
    ...({ plugins: [{ id: 'auto-router', allowed_models: ['test/*'], ...plugin }] } as object),
  });
}

// A 1x1 PNG: the smallest image the SDK sends as a base64 block.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** An auto-routed prompt with an image among the models allowed. */
function autoRoutedWithImage(allowed: string[]) {
  return client.messages.create({
    model: 'switchboard/auto',
    max_tokens: 64,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          { type: 'text', text: 'What is this?' },
        ],
      },
    ],
    ...({ plugins: [{ id: 'auto-router', allowed_models: allowed }] } as object),
  });
}

/** Which upstream model each fake was asked for. */
function upstreamModels(): { alpha: unknown[]; beta: unknown[] } {
  return { alpha: alpha.requests.map(upstreamModelOf), beta: beta.requests.map(upstreamModelOf) };
}

async function listedModel(id: string): Promise<Anthropic.Models.ModelInfo & Record<string, unknown>> {
  for await (const model of client.models.list()) if (model.id === id) return model as Anthropic.Models.ModelInfo & Record<string, unknown>;
  throw new Error(`${id} is not listed`);
}

describe('the auto-router after an endpoint retires', () => {
  it('prices the model at the endpoints still serving it: a trivial prompt goes to the model now cheapest', async () => {
    const before = await autoRouted();
    expect(before.model).toBe('test/retiring');
    expect(upstreamModels()).toEqual({ alpha: ['up-retiring-alpha'], beta: [] });

    resetFakes(alpha, beta);
    clock = RETIREMENT_DAY;
    const after = await autoRouted();
    expect(after.model).toBe('test/steady');
    expect(upstreamModels()).toEqual({ alpha: ['up-steady'], beta: [] });
  });

  it('no longer finds the model in cost_tier economy, which only the retired endpoint’s price put it in', async () => {
    const before = await autoRouted({ allowed_models: ['test/retiring'], cost_tier: 'economy' });
    expect(before.model).toBe('test/retiring');

    resetFakes(alpha, beta);
    clock = RETIREMENT_DAY;
    const error = await rejection(autoRouted({ allowed_models: ['test/retiring'], cost_tier: 'economy' }));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('auto-router: no candidate model in cost_tier economy');
    expect(upstreamModels()).toEqual({ alpha: [], beta: [] });
  });

  it('no longer offers the model for an image once the only endpoint reading images has retired', async () => {
    const before = await autoRoutedWithImage(['test/retiring']);
    expect(before.model).toBe('test/retiring');
    expect(upstreamModels()).toEqual({ alpha: ['up-retiring-alpha'], beta: [] });

    resetFakes(alpha, beta);
    clock = RETIREMENT_DAY;
    const error = await rejection(autoRoutedWithImage(['test/retiring']));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('auto-router: no candidate model supports images');
    expect(upstreamModels()).toEqual({ alpha: [], beta: [] });

    // Among both models, the image goes to the one whose serving endpoint still reads it.
    const among = await autoRoutedWithImage(['test/*']);
    expect(among.model).toBe('test/steady');
    expect(upstreamModels()).toEqual({ alpha: ['up-steady'], beta: [] });
  });
});

describe('GET /models after an endpoint retires', () => {
  it('gives the context window and max_tokens of the endpoints still serving the model', async () => {
    expect(await listedModel('test/retiring')).toMatchObject({ max_input_tokens: 1_000_000, context_length: 1_000_000, max_tokens: 128_000, lifecycle: 'active' });

    clock = RETIREMENT_DAY;
    const after = await listedModel('test/retiring');
    expect(after).toMatchObject({ max_input_tokens: 200_000, context_length: 200_000, max_tokens: 64_000, lifecycle: 'active' });
    // The retired endpoint is still listed, with its own figures, as retired.
    expect(after.endpoints).toEqual([
      expect.objectContaining({ provider: 'alpha', context_length: 1_000_000, max_output_tokens: 128_000, lifecycle: 'retired' }),
      expect.objectContaining({ provider: 'beta', context_length: 200_000, max_output_tokens: 64_000, lifecycle: 'active' }),
    ]);
  });

  it('gives the features of the endpoints still serving the model, as the auto-router reads them', async () => {
    const ALL = { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true };
    expect((await listedModel('test/retiring')).features).toEqual(ALL);

    clock = RETIREMENT_DAY;
    const after = await listedModel('test/retiring');
    // Only Beta serves it now, and Beta reads no images: the auto-router no longer offers it for one (above).
    expect(after.features).toEqual({ ...ALL, vision: false });
    expect(after.endpoints).toEqual([
      expect.objectContaining({ provider: 'alpha', features: ALL, lifecycle: 'retired' }),
      expect.objectContaining({ provider: 'beta', features: { ...ALL, vision: false }, lifecycle: 'active' }),
    ]);
    const retrieved = (await client.models.retrieve('test/retiring')) as Anthropic.Models.ModelInfo & Record<string, unknown>;
    expect(retrieved.features).toEqual({ ...ALL, vision: false });
  });
});
