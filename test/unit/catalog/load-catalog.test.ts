import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { writeConfig } from './catalog-test-files.ts';

const ISSUE_EXAMPLE = `
providers:
  anthropic: { base_url: http://127.0.0.1:9001, api_key: \${ANTHROPIC_API_KEY} }   # shared (gateway-owned) key
models:
  anthropic/claude-sonnet-4.5:
    endpoints:
      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } }
`;

describe('loadCatalog with the documented example file', () => {
  const file = writeConfig(ISSUE_EXAMPLE);
  const catalog = loadCatalog({ configPath: file, env: { ANTHROPIC_API_KEY: 'sk-ant-test-secret' } });

  it('points the provider at the configured base URL with the interpolated shared key', () => {
    const anthropic = catalog.getProvider('anthropic');
    expect(anthropic?.baseUrl).toBe('http://127.0.0.1:9001');
    expect(anthropic?.sharedKey?.reveal()).toBe('sk-ant-test-secret');
    expect(catalog.sourceFile).toBe(file);
  });

  it('overrides the endpoint price field by field and keeps the built-in fields not given', () => {
    const endpoint = catalog.getEndpoint('anthropic/claude-sonnet-4.5@anthropic');
    expect(endpoint?.upstreamModel).toBe('claude-sonnet-4-5');
    expect(endpoint?.pricing).toMatchObject({ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 });
    expect(endpoint?.pricing.long_context?.threshold_tokens).toBe(200_000);
    // The other built-in endpoint of the model survives an override of one.
    expect(catalog.getModel('anthropic/claude-sonnet-4.5')?.endpoints.map((each) => each.provider.slug)).toEqual(['anthropic', 'bedrock']);
  });

  it('never shows the shared key: not in GET /models, not in logs, not in JSON', () => {
    const everything = [JSON.stringify(catalog.modelListAt(Date.now())), JSON.stringify(catalog.providers), inspect(catalog.providers, { depth: 10 }), String(catalog.getProvider('anthropic')?.sharedKey)];
    for (const text of everything) expect(text).not.toContain('sk-ant-test-secret');
    expect(inspect(catalog.getProvider('anthropic')?.sharedKey)).toBe('SecretValue([redacted])');
  });

  it('serves lookups from frozen indexes', () => {
    expect(Object.isFrozen(catalog.models)).toBe(true);
    expect(Object.isFrozen(catalog.getModel('openai/gpt-5')?.endpoints[0]?.pricing)).toBe(true);
    expect(Object.isFrozen(catalog.modelListAt(Date.now()).data[0]?.endpoints[0]?.pricing)).toBe(true);
    expect(catalog.getModel('no/such-model')).toBeUndefined();
    expect(catalog.modelsOfVendor('anthropic').map((model) => model.slug)).toContain('anthropic/claude-haiku-4.5');
    expect(catalog.endpointsOfProvider('groq').every((endpoint) => endpoint.provider.slug === 'groq')).toBe(true);
    expect(catalog.endpointsOfProvider('nobody')).toEqual([]);
  });
});

describe('loadCatalog without a file', () => {
  it('is the built-in catalog when neither configPath nor SWITCHBOARD_CONFIG is given', () => {
    const catalog = loadCatalog({ env: {} });
    expect(catalog.sourceFile).toBeNull();
    expect(catalog.getProvider('anthropic')?.baseUrl).toBe('https://api.anthropic.com');
    expect(catalog.getProvider('anthropic')?.sharedKey).toBeNull();
  });

  it('reads SWITCHBOARD_CONFIG from env when configPath is omitted', () => {
    const file = writeConfig('providers:\n  openai: { base_url: http://127.0.0.1:9002/v1 }\n');
    expect(loadCatalog({ env: { SWITCHBOARD_CONFIG: file } }).getProvider('openai')?.baseUrl).toBe('http://127.0.0.1:9002/v1');
  });

  it('accepts an empty file', () => {
    expect(loadCatalog({ configPath: writeConfig(''), env: {} }).models.length).toBeGreaterThan(20);
  });
});

describe('environment interpolation', () => {
  const load = (value: string, env: NodeJS.ProcessEnv) =>
    loadCatalog({ configPath: writeConfig(`providers:\n  groq: { base_url: "${value}" }\n`), env }).getProvider('groq')?.baseUrl;

  it.each([
    ['http://${HOST}:9003/v1', { HOST: '127.0.0.1' }, 'http://127.0.0.1:9003/v1'],
    ['http://${HOST:-localhost}:9003/v1', {}, 'http://localhost:9003/v1'],
    ['http://${HOST:-localhost}:9003/v1', { HOST: '' }, 'http://localhost:9003/v1'],
    ['http://${HOST:-localhost}:9003/v1', { HOST: '127.0.0.2' }, 'http://127.0.0.2:9003/v1'],
    ['http://127.0.0.1:9003/${PREFIX}${VERSION}', { PREFIX: 'openai/', VERSION: 'v1' }, 'http://127.0.0.1:9003/openai/v1'],
  ])('%s with %j gives %s', (value, env, expected) => {
    expect(load(value, env)).toBe(expected);
  });

  it('writes $${ as a literal ${', () => {
    const file = writeConfig('providers:\n  groq: { headers: { x-template: "$${NOT_A_VAR}" } }\n');
    expect(loadCatalog({ configPath: file, env: {} }).getProvider('groq')?.headers['x-template']).toBe('${NOT_A_VAR}');
  });

  it('keeps a value with YAML syntax in it verbatim, without changing the file structure', () => {
    const file = writeConfig('providers:\n  groq: { api_key: ${GROQ_API_KEY}, base_url: http://127.0.0.1:9004 }\n');
    const value = 'gsk-a: b, c } # d\n  e: [f';
    const groq = loadCatalog({ configPath: file, env: { GROQ_API_KEY: value } }).getProvider('groq');
    expect(groq?.sharedKey?.reveal()).toBe(value);
    expect(groq?.baseUrl).toBe('http://127.0.0.1:9004');
  });

  it('treats an empty interpolated key as no shared key', () => {
    const file = writeConfig('providers:\n  groq: { api_key: "${GROQ_API_KEY:-}" }\n');
    expect(loadCatalog({ configPath: file, env: {} }).getProvider('groq')?.sharedKey).toBeNull();
  });
});

describe('the example configuration file', () => {
  it('loads, so the documented example stays valid', () => {
    const file = new URL('../../../src/catalog/switchboard.example.yaml', import.meta.url).pathname;
    const catalog = loadCatalog({ configPath: file, env: { ANTHROPIC_API_KEY: 'sk-ant-example', OTEL_COLLECTOR_TOKEN: 'otel-example', LANGFUSE_SECRET_KEY: 'sk-lf-example' } });
    expect(catalog.getProvider('perplexity')).toBeUndefined();
    expect(catalog.getProvider('my-vllm')?.displayName).toBe('House vLLM');
    expect(catalog.getProvider('openai')?.sharedKey).toBeNull();
    expect(catalog.getModel('qwen/qwen3-coder-30b')?.endpoints[0]?.regions).toEqual(['europe']);
    expect(catalog.getModel('anthropic/claude-sonnet-4.5')?.endpoints.map((endpoint) => endpoint.provider.slug)).toEqual(['anthropic']);
    expect(catalog.getModel('local/llama3.2')).toMatchObject({ contextLength: null, endpoints: [{ upstreamModel: 'llama3.2', contextLength: null }] });
    expect(catalog.serverTools.webSearch).toMatchObject({ backend: 'searxng', baseUrl: 'http://127.0.0.1:8888', maxResults: 10 });
    expect(catalog.serverTools.webFetch.allowlist).toEqual([{ kind: 'cidr', range: '10.20.0.0/16' }, { kind: 'host', host: 'wiki.internal.example' }]);
    expect(catalog.serverTools.mcpServers.get('docs')).toMatchObject({ url: 'http://127.0.0.1:8931/mcp', toolListTtlMs: 300_000 });
    expect(catalog.fileDestinations.map((entry) => [entry.destination.name, entry.destination.kind, entry.workspaces])).toEqual([
      ['collector', 'otlp', null],
      ['langfuse', 'langfuse', ['26702b5a-4f17-4a26-bf0b-aeaaaed85465']],
    ]);
    expect(catalog.plugins.moderation).toEqual({ engine: 'openai', provider: 'openai', model: 'omni-moderation-latest', failureMode: 'fail_closed', timeoutMs: 10_000 });
    expect(catalog.plugins.defaults.workspaces.get('6f1c2a9e-3b7d-4c1e-9a2f-0d8e5b4c3a21')).toEqual([{ id: 'response-healing' }, { id: 'context-compression' }]);
    expect(catalog.plugins.hasDefaults).toBe(true);
  });
});
