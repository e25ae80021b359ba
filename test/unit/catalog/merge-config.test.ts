import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { writeConfig } from './catalog-test-files.ts';

const load = (yaml: string, env: NodeJS.ProcessEnv = {}) => loadCatalog({ configPath: writeConfig(yaml), env });

describe('provider overrides', () => {
  it('declares a new OpenAI-compatible provider with its models', () => {
    const catalog = load(`
providers:
  local-llm:
    family: openai-compatible
    display_name: Local LLM
    base_url: http://127.0.0.1:9100/v1/
    data_policy: { zdr: true, data_collection: deny }
models:
  local/qwen3-8b:
    name: Qwen3 8B (local)
    context_length: 32768
    capabilities: { tools: true }
    endpoints:
      - { provider: local-llm, model: qwen3:8b, pricing: { input: 0, output: 0 }, regions: [europe] }
`);
    const provider = catalog.getProvider('local-llm');
    expect(provider).toMatchObject({ displayName: 'Local LLM', family: 'openai-compatible', auth: 'bearer', baseUrl: 'http://127.0.0.1:9100/v1', promptCaching: 'none' });
    expect(provider?.dataPolicy).toEqual({ zdr: true, data_collection: 'deny' });
    const model = catalog.getModel('local/qwen3-8b');
    expect(model?.capabilities).toEqual({ tools: true, vision: false, pdf: false, thinking: false, caching: false, structured_output: false });
    expect(model?.endpoints[0]).toMatchObject({ id: 'local/qwen3-8b@local-llm', upstreamModel: 'qwen3:8b', regions: ['europe'], contextLength: 32768 });
    expect(model?.endpoints[0]?.pricing).toEqual({ input: 0, output: 0, cache_read: null, cache_write: null });
    expect(catalog.modelsOfVendor('local')).toHaveLength(1);
  });

  it('accepts a new model without context_length: unknown for the model and its endpoints, unless an endpoint gives one', () => {
    const catalog = load(`
models:
  local/m:
    endpoints:
      - { provider: ollama, model: m, pricing: { input: 0, output: 0 } }
  local/n:
    endpoints:
      - { provider: ollama, model: n, pricing: { input: 0, output: 0 }, context_length: 8192 }
`);
    expect(catalog.getModel('local/m')).toMatchObject({ name: 'local/m', contextLength: null, endpoints: [{ contextLength: null }] });
    expect(catalog.getModel('local/n')).toMatchObject({ contextLength: null, endpoints: [{ contextLength: 8192 }] });
    expect(catalog.modelListAt(Date.now()).data.find((model) => model.id === 'local/m')).toMatchObject({ context_length: null, endpoints: [{ context_length: null }] });
  });

  it('takes an endpoint\'s retirement, or clears a built-in one with null, and refuses a date that is not RFC 3339', () => {
    const catalog = load(`
models:
  anthropic/claude-sonnet-4.5:
    endpoints:
      - { provider: anthropic, retires_at: null }
      - { provider: bedrock, deprecated_at: '2026-12-01T00:00:00Z', retires_at: '2027-06-01T00:00:00Z' }
`);
    const [anthropic, bedrock] = catalog.getModel('anthropic/claude-sonnet-4.5')?.endpoints ?? [];
    expect([anthropic?.retiresAt, bedrock?.deprecatedAt, bedrock?.retiresAt]).toEqual([null, '2026-12-01T00:00:00Z', '2027-06-01T00:00:00Z']);
    expect(() => load('models:\n  anthropic/claude-sonnet-4.5:\n    endpoints:\n      - { provider: bedrock, retires_at: 2027-06-01 }\n')).toThrow(
      /retires_at: must be an RFC 3339 date-time such as 2026-11-30T00:00:00Z/,
    );
  });

  it('keeps the built-in context length when an override does not give one', () => {
    const catalog = load('models:\n  openai/gpt-5: { name: GPT-5 (house) }\n');
    expect(catalog.getModel('openai/gpt-5')?.contextLength).toBe(400_000);
  });

  it('assumes an undeclared data policy may collect data', () => {
    const catalog = load('providers:\n  mystery: { family: openai-compatible, base_url: http://127.0.0.1:9101 }\n');
    expect(catalog.getProvider('mystery')?.dataPolicy).toEqual({ zdr: false, data_collection: 'allow' });
  });

  it('merges data_policy, regional hosts and quirks field by field and keeps the rest of the preset', () => {
    const catalog = load(`
providers:
  fireworks:
    regional_base_urls: { europe: http://127.0.0.1:9102/inference/v1 }
    data_policy: { zdr: false }
    quirks: { tool_call_id_max_length: 40 }
    headers: { x-extra: one }
`);
    const fireworks = catalog.getProvider('fireworks');
    expect(fireworks?.baseUrl).toBe('https://api.fireworks.ai/inference/v1');
    expect(fireworks?.regionalBaseUrls).toEqual({ europe: 'http://127.0.0.1:9102/inference/v1' });
    expect(fireworks?.dataPolicy).toEqual({ zdr: false, data_collection: 'deny' });
    expect(fireworks?.quirks).toMatchObject({ includeUsage: true, toolCallIdMaxLength: 40 });
    expect(fireworks?.headers).toEqual({ 'x-extra': 'one' });
    expect(catalog.getEndpoint('openai/gpt-oss-120b@fireworks')?.regions).toEqual(['global', 'europe']);
  });

  it('switches the OpenAI family for a chat-completions upstream', () => {
    expect(load('providers:\n  openai: { family: openai-chat }\n').getProvider('openai')?.family).toBe('openai-chat');
  });

  it('removes a disabled provider with every endpoint on it, and models left without endpoints', () => {
    const catalog = load('providers:\n  deepseek: { enabled: false }\n  bedrock: { enabled: false }\n');
    expect(catalog.getProvider('deepseek')).toBeUndefined();
    expect(catalog.getModel('deepseek/deepseek-v3.2')).toBeUndefined();
    expect(catalog.getModel('anthropic/claude-opus-4.5')?.endpoints.map((endpoint) => endpoint.provider.slug)).toEqual(['anthropic']);
    expect(catalog.modelListAt(Date.now()).data.some((model) => model.endpoints.some((endpoint) => endpoint.provider === 'bedrock'))).toBe(false);
  });

  it('keeps AWS and Azure settings, secrets wrapped', () => {
    const catalog = load(`
providers:
  bedrock: { aws: { region: eu-west-1, access_key_id: AKIDEXAMPLE, secret_access_key: \${AWS_SECRET} } }
  azure: { base_url: http://127.0.0.1:9103/openai, api_key: az-key, azure: { api_version: 2025-04-01-preview } }
`, { AWS_SECRET: 'wJalrXUtnFEMI' });
    const aws = catalog.getProvider('bedrock')?.aws;
    expect(aws?.region).toBe('eu-west-1');
    expect(aws?.secretAccessKey?.reveal()).toBe('wJalrXUtnFEMI');
    expect(JSON.stringify(aws)).not.toContain('wJalrXUtnFEMI');
    expect(catalog.getProvider('azure')).toMatchObject({ baseUrl: 'http://127.0.0.1:9103/openai', azureApiVersion: '2025-04-01-preview' });
  });
});

describe('model overrides', () => {
  it('adds an endpoint on a provider that did not serve the model, after the built-in ones', () => {
    const catalog = load(`
models:
  openai/gpt-5:
    endpoints:
      - { provider: openrouter, model: openai/gpt-5, pricing: { input: 1.25, output: 10, cache_read: 0.125 } }
`);
    expect(catalog.getModel('openai/gpt-5')?.endpoints.map((endpoint) => endpoint.id)).toEqual(['openai/gpt-5@openai', 'openai/gpt-5@openrouter']);
    expect(catalog.getEndpoint('openai/gpt-5@openrouter')?.dataPolicy).toEqual({ zdr: false, data_collection: 'allow' });
  });

  it('replaces the built-in endpoints with replace_endpoints', () => {
    const catalog = load(`
models:
  anthropic/claude-haiku-4.5:
    replace_endpoints: true
    endpoints:
      - { provider: anthropic, model: claude-haiku-4-5-20251001, pricing: { input: 1, output: 5 } }
`);
    const endpoints = catalog.getModel('anthropic/claude-haiku-4.5')?.endpoints ?? [];
    expect(endpoints.map((endpoint) => endpoint.id)).toEqual(['anthropic/claude-haiku-4.5@anthropic']);
    expect(endpoints[0]?.pricing).toEqual({ input: 1, output: 5, cache_read: null, cache_write: null });
  });

  it('removes one endpoint or a whole model with enabled: false', () => {
    const catalog = load(`
models:
  anthropic/claude-opus-4.1: { enabled: false }
  anthropic/claude-sonnet-4.5:
    endpoints:
      - { provider: bedrock, enabled: false }
`);
    expect(catalog.getModel('anthropic/claude-opus-4.1')).toBeUndefined();
    expect(catalog.getEndpoint('anthropic/claude-sonnet-4.5@bedrock')).toBeUndefined();
    expect(catalog.endpointsOfProvider('bedrock').some((endpoint) => endpoint.modelSlug === 'anthropic/claude-sonnet-4.5')).toBe(false);
  });

  it('overrides name, context length, capabilities, limits, data policy and the fast variant', () => {
    const catalog = load(`
models:
  openai/gpt-5:
    name: GPT-5 (house)
    context_length: 272000
    capabilities: { pdf: false }
    endpoints:
      - provider: openai
        max_output_tokens: 64000
        data_policy: { zdr: true }
        fast: { pricing: { output: 21 } }
  openai/gpt-4.1:
    endpoints:
      - { provider: openai, fast: null }
`);
    const model = catalog.getModel('openai/gpt-5');
    expect(model).toMatchObject({ name: 'GPT-5 (house)', contextLength: 272000 });
    expect(model?.capabilities.pdf).toBe(false);
    expect(model?.endpoints[0]?.capabilities.pdf).toBe(false);
    expect(model?.endpoints[0]).toMatchObject({ maxOutputTokens: 64000, contextLength: 272000, dataPolicy: { zdr: true, data_collection: 'deny' } });
    expect(model?.endpoints[0]?.fast?.pricing).toEqual({ input: 2.5, output: 21, cache_read: 0.25, cache_write: null });
    expect(catalog.getEndpoint('openai/gpt-4.1@openai')?.fast).toBeNull();
  });
});
