import { describe, expect, it } from 'vitest';
import type { DataRegion } from '#src/data-region.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { locateEndpoint } from '#src/catalog/locate-endpoint.ts';
import { writeConfig } from './catalog-test-files.ts';

const catalog = loadCatalog({
  configPath: writeConfig(`
providers:
  eu-llm: { family: openai-compatible, base_url: http://127.0.0.1:9200/v1 }
models:
  local/eu-model:
    context_length: 8192
    endpoints:
      - { provider: eu-llm, model: m, pricing: { input: 0, output: 0 }, regions: [europe] }
`),
  env: {},
});

const endpoint = (id: string) => {
  const found = catalog.getEndpoint(id);
  if (!found) throw new Error(`no endpoint ${id}`);
  return found;
};

describe('locateEndpoint', () => {
  it.each<[string, DataRegion, { baseUrl: string; upstreamModel: string } | null]>([
    ['openai/gpt-5@openai', 'global', { baseUrl: 'https://api.openai.com/v1', upstreamModel: 'gpt-5' }],
    ['openai/gpt-5@openai', 'us', { baseUrl: 'https://us.api.openai.com/v1', upstreamModel: 'gpt-5' }],
    ['openai/gpt-5@openai', 'europe', { baseUrl: 'https://eu.api.openai.com/v1', upstreamModel: 'gpt-5' }],
    ['anthropic/claude-sonnet-4.5@anthropic', 'global', { baseUrl: 'https://api.anthropic.com', upstreamModel: 'claude-sonnet-4-5' }],
    ['anthropic/claude-sonnet-4.5@anthropic', 'europe', null],
    ['anthropic/claude-sonnet-4.5@bedrock', 'global', { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', upstreamModel: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0' }],
    ['anthropic/claude-sonnet-4.5@bedrock', 'europe', { baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com', upstreamModel: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' }],
    ['anthropic/claude-opus-4.1@bedrock', 'global', { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', upstreamModel: 'us.anthropic.claude-opus-4-1-20250805-v1:0' }],
    ['anthropic/claude-opus-4.1@bedrock', 'europe', null],
    ['openai/gpt-oss-120b@fireworks', 'europe', null],
    ['local/eu-model@eu-llm', 'europe', { baseUrl: 'http://127.0.0.1:9200/v1', upstreamModel: 'm' }],
    ['local/eu-model@eu-llm', 'global', { baseUrl: 'http://127.0.0.1:9200/v1', upstreamModel: 'm' }],
    ['local/eu-model@eu-llm', 'us', null],
  ])('%s for %s', (id, region, expected) => {
    expect(locateEndpoint(endpoint(id), region)).toEqual(expected);
  });

  it('follows a configured base URL override, as tests reach fake servers on 127.0.0.1', () => {
    const overridden = loadCatalog({ configPath: writeConfig('providers:\n  openai: { base_url: http://127.0.0.1:9201/v1, regional_base_urls: { europe: http://127.0.0.1:9202/v1 } }\n'), env: {} });
    const gpt5 = overridden.getEndpoint('openai/gpt-5@openai');
    if (!gpt5) throw new Error('missing');
    expect(locateEndpoint(gpt5, 'global')?.baseUrl).toBe('http://127.0.0.1:9201/v1');
    expect(locateEndpoint(gpt5, 'europe')?.baseUrl).toBe('http://127.0.0.1:9202/v1');
    expect(locateEndpoint(gpt5, 'us')?.baseUrl).toBe('https://us.api.openai.com/v1');
  });
});
