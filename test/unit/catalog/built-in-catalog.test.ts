import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Pricing } from '#src/catalog/catalog-types.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { PROVIDER_PRESETS } from '#src/providers/presets/index.ts';

const catalog = loadCatalog({ env: {} });
const endpoints = catalog.models.flatMap((model) => model.endpoints);

function schemaValidator() {
  // The bundled spec: the model schemas refer to shared ones (DataRegion) in other files.
  const specFile = fileURLToPath(new URL('../../../generated/openapi.yaml', import.meta.url));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...(parse(readFileSync(specFile, 'utf8')) as object), $id: 'spec' });
  return ajv.compile({ $ref: 'spec#/components/schemas/ModelList' });
}

describe('the built-in catalog', () => {
  it('has the models the interface and the routing issue rely on', () => {
    for (const slug of ['anthropic/claude-sonnet-4.5', 'anthropic/claude-opus-4.6', 'anthropic/claude-haiku-4.5', 'anthropic/claude-opus-5.5', 'anthropic/claude-sonnet-5.5', 'anthropic/claude-haiku-5.5', 'openai/gpt-5', 'openai/gpt-4.1', 'openai/o3', 'google/gemini-2.5-pro', 'google/gemini-2.5-flash', 'deepseek/deepseek-v3.2', 'meta-llama/llama-3.3-70b-instruct', 'qwen/qwen3-32b', 'mistral/mistral-medium-3.1', 'xai/grok-4']) {
      expect(catalog.getModel(slug), slug).toBeDefined();
    }
  });

  it('serves some models from several providers, for fallback across providers', () => {
    expect(catalog.getModel('meta-llama/llama-3.3-70b-instruct')?.endpoints.length).toBeGreaterThanOrEqual(3);
    expect(catalog.getModel('anthropic/claude-sonnet-4.5')?.endpoints.map((endpoint) => endpoint.provider.displayName)).toEqual(['Anthropic', 'Amazon Bedrock']);
  });

  it('has one preset per slug, every one with a display name', () => {
    const slugs = PROVIDER_PRESETS.map((preset) => preset.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const preset of PROVIDER_PRESETS) expect(preset.display_name.length, preset.slug).toBeGreaterThan(0);
  });

  it.each(endpoints.map((endpoint) => [endpoint.id, endpoint] as const))('%s has sane data', (_id, endpoint) => {
    const prices = (pricing: Pricing) => [pricing.input, pricing.output, pricing.cache_read ?? 0, pricing.cache_write ?? 0, pricing.cache_write_1h ?? 0];
    for (const price of prices(endpoint.pricing)) expect(price).toBeGreaterThanOrEqual(0);
    // A cache read is a discount, never a premium.
    if (endpoint.pricing.cache_read !== null) expect(endpoint.pricing.cache_read).toBeLessThan(endpoint.pricing.input);
    if (endpoint.fast) {
      expect(endpoint.fast.pricing.input).toBeGreaterThan(endpoint.pricing.input);
      expect(endpoint.fast.pricing.output).toBeGreaterThan(endpoint.pricing.output);
    }
    if (endpoint.pricing.long_context) expect(endpoint.pricing.long_context.input).toBeGreaterThan(endpoint.pricing.input);
    expect(endpoint.regions.length).toBeGreaterThan(0);
    expect(endpoint.contextLength).toBeLessThanOrEqual(catalog.getModel(endpoint.modelSlug)?.contextLength ?? 0);
    for (const region of Object.keys(endpoint.regionalModels)) expect(endpoint.regions).toContain(region);
  });

  it("prices Anthropic's web search at $10 per 1,000 searches on Anthropic's API, at every speed", () => {
    const anthropic = endpoints.filter((endpoint) => endpoint.provider.slug === 'anthropic');
    expect(anthropic.length).toBeGreaterThan(0);
    for (const endpoint of anthropic) {
      expect(endpoint.pricing.web_search_request, endpoint.id).toBe(0.01);
      if (endpoint.fast) expect(endpoint.fast.pricing.web_search_request, endpoint.id).toBe(0.01);
    }
    // Nothing documents the fee on Bedrock.
    for (const endpoint of endpoints.filter((candidate) => candidate.provider.slug === 'bedrock')) expect(endpoint.pricing.web_search_request ?? null, endpoint.id).toBeNull();
  });

  it('lists only what the model can do on each endpoint', () => {
    for (const model of catalog.models) {
      for (const endpoint of model.endpoints) {
        for (const [capability, supported] of Object.entries(endpoint.capabilities)) {
          if (supported) expect(model.capabilities[capability as keyof typeof model.capabilities], `${endpoint.id} ${capability}`).toBe(true);
        }
      }
    }
  });

  it('produces a GET /models body that matches the spec schema', () => {
    const validate = schemaValidator();
    const valid = validate(catalog.modelListAt(Date.now()));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the spec schema rejects a body with a key in it (the view is closed)', () => {
    const validate = schemaValidator();
    const body = structuredClone(catalog.modelListAt(Date.now())) as unknown as { data: { endpoints: Record<string, unknown>[] }[] };
    const first = body.data[0]?.endpoints[0];
    if (first) first.api_key = 'sk-leak';
    expect(validate(body)).toBe(false);
  });
});
