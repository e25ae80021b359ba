import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/index.ts';
import { createCatalogPlanView } from '#src/routing/catalog-plan-view.ts';
import { writeConfig } from '#test/unit/catalog/catalog-test-files.ts';

const catalog = loadCatalog({ env: {} });
const view = createCatalogPlanView(catalog);

describe('the planner view of the built-in catalog', () => {
  it.each([
    ['anthropic/claude-sonnet-4.5', 'anthropic/claude-sonnet-4.5'],
    ['claude-sonnet-4-5', 'anthropic/claude-sonnet-4.5'],
    ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4.5'],
    ['claude-haiku-4-5-20251001', 'anthropic/claude-haiku-4.5'],
    ['claude-sonnet-4-20250514', 'anthropic/claude-sonnet-4'],
  ])('resolves %s to %s', (requested, slug) => {
    expect(view.model(requested)?.slug).toBe(slug);
  });

  it.each([['acme/unknown'], ['claude-unknown-9'], ['gpt-5']])('knows nothing of %s', (requested) => {
    expect(view.model(requested)).toBeUndefined();
  });

  it('marks Bedrock cross-region inference profiles, and nothing else, for the declared-region rule', () => {
    const endpoints = view.model('anthropic/claude-sonnet-4.5')?.endpoints ?? [];
    const bedrock = endpoints.find((endpoint) => endpoint.provider === 'bedrock');
    const anthropic = endpoints.find((endpoint) => endpoint.provider === 'anthropic');
    expect(bedrock?.regionalExclusions).toEqual({ crossRegionProfile: true });
    expect(anthropic?.regionalExclusions).toBeUndefined();
  });

  it('offers top_k only where the vendor API takes it', () => {
    const claude = view.model('anthropic/claude-sonnet-4.5')?.endpoints.find((endpoint) => endpoint.provider === 'anthropic');
    const gpt = view.model('openai/gpt-5')?.endpoints.find((endpoint) => endpoint.provider === 'openai');
    expect(claude?.supportedParameters).toContain('top_k');
    expect(gpt?.supportedParameters).not.toContain('top_k');
    expect(gpt?.supportedParameters).toEqual(expect.arrayContaining(['tools', 'tool_choice', 'structured_output']));
  });

  it('offers stop_sequences everywhere but on the OpenAI Responses API, which has none', () => {
    const claude = view.model('anthropic/claude-sonnet-4.5')?.endpoints.find((endpoint) => endpoint.provider === 'anthropic');
    const gpt = view.model('openai/gpt-5')?.endpoints.find((endpoint) => endpoint.provider === 'openai');
    expect(catalog.getProvider('openai')?.family).toBe('openai-responses');
    expect(claude?.supportedParameters).toContain('stop_sequences');
    expect(gpt?.supportedParameters).not.toContain('stop_sequences');
  });

  it('offers structured_output on an OpenAI-compatible vendor only when it takes schemas (JSON mode drops them)', () => {
    const config = [
      'providers:',
      '  json-mode-only: { family: openai-compatible, base_url: "http://127.0.0.1:9/v1" }',
      '  takes-schemas: { family: openai-compatible, base_url: "http://127.0.0.1:9/v1", quirks: { supports_structured_outputs: true } }',
      'models:',
      '  local/structured:',
      '    capabilities: { structured_output: true }',
      '    endpoints:',
      '      - { provider: json-mode-only, model: m, pricing: { input: 0, output: 0 } }',
      '      - { provider: takes-schemas, model: m, pricing: { input: 0, output: 0 } }',
      '',
    ].join('\n');
    const configured = createCatalogPlanView(loadCatalog({ configPath: writeConfig(config), env: {} }));
    const endpoints = configured.model('local/structured')?.endpoints ?? [];
    const offers = (provider: string) => endpoints.find((endpoint) => endpoint.provider === provider)?.supportedParameters;
    expect(offers('takes-schemas')).toContain('structured_output');
    expect(offers('json-mode-only')).toEqual(expect.any(Array));
    expect(offers('json-mode-only')).not.toContain('structured_output');
  });

  it('has no shared provider without a configured key', () => {
    expect([...view.sharedProviders].filter((slug) => catalog.getProvider(slug)?.auth !== 'none')).toEqual([]);
  });

  it('prices auto-router candidates at their cheapest endpoint', () => {
    const candidate = view.autoCandidatesAt(Date.parse('2026-11-28T12:00:00Z')).find((entry) => entry.slug === 'anthropic/claude-sonnet-4.5');
    const cheapest = Math.min(...(catalog.getModel('anthropic/claude-sonnet-4.5')?.endpoints ?? []).map((endpoint) => endpoint.pricing.input + endpoint.pricing.output));
    expect(candidate && candidate.pricing.input + candidate.pricing.output).toBe(cheapest);
  });
});
