import { describe, expect, it } from 'vitest';
import { CatalogConfigError } from '#src/catalog/catalog-config-error.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { writeConfig } from './catalog-test-files.ts';

/** Loads a file that must fail and returns the error. */
function failure(yaml: string, env: NodeJS.ProcessEnv = {}): { file: string; error: CatalogConfigError } {
  const file = writeConfig(yaml);
  try {
    loadCatalog({ configPath: file, env });
  } catch (error) {
    if (error instanceof CatalogConfigError) return { file, error };
    throw error;
  }
  throw new Error('the file was accepted');
}

const SONNET = 'models.anthropic/claude-sonnet-4.5';

describe('a bad configuration file stops start-up naming the file, the path and the problem', () => {
  it.each([
    [
      'a price of the wrong type',
      `models:\n  anthropic/claude-sonnet-4.5:\n    endpoints:\n      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: three, output: 15 } }\n`,
      `${SONNET}.endpoints[0].pricing.input: must be a number >= 0, got "three"`,
    ],
    ['a negative price', `models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openai, pricing: { output: -1 } }\n`, 'models.openai/gpt-5.endpoints[0].pricing.output: must be a number >= 0, got -1'],
    ['a misspelt field', `providers:\n  anthropic: { base_ulr: http://127.0.0.1:9001 }\n`, 'providers.anthropic.base_ulr: is not a known field (expected one of enabled, display_name, family, base_url'],
    ['an unknown top-level section', 'model:\n  openai/gpt-5: {}\n', 'model: is not a known field (expected one of providers, models, server_tools, observability, plugins)'],
    ['a file that is not a mapping', '- providers\n', 'must be a mapping, got a list'],
    ['an invalid provider slug', 'providers:\n  My_Provider: { family: openai-compatible, base_url: http://127.0.0.1:1 }\n', 'providers.My_Provider: is not a provider slug'],
    ['a model slug without a vendor', 'models:\n  gpt-5: { context_length: 1000 }\n', 'models.gpt-5: is not a model slug of the form <vendor>/<model>'],
    ['an unknown family', 'providers:\n  local: { family: openai-compat, base_url: http://127.0.0.1:1 }\n', 'providers.local.family: must be one of anthropic, openai-chat, openai-responses, openai-compatible, google, bedrock, azure, got "openai-compat"'],
    ['a base URL that is not http(s)', 'providers:\n  groq: { base_url: "ftp://127.0.0.1/v1" }\n', 'providers.groq.base_url: must be an http or https URL, got "ftp://127.0.0.1/v1"'],
    ['a new provider without family and base URL', 'providers:\n  local: { display_name: Local }\n', 'providers.local.family: is required for a provider that is not built in'],
    ['a new provider without base URL', 'providers:\n  local: { family: openai-compatible }\n', 'providers.local.base_url: is required for a provider that is not built in'],
    [
      'an endpoint on an unknown provider',
      'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: nowhere, model: gpt-5, pricing: { input: 1, output: 1 } }\n',
      'models.openai/gpt-5.endpoints[0].provider: names no enabled provider (nowhere is neither built in nor declared under providers)',
    ],
    [
      'an endpoint on a disabled provider',
      'providers:\n  openrouter: { enabled: false }\nmodels:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openrouter, model: openai/gpt-5, pricing: { input: 1, output: 1 } }\n',
      'models.openai/gpt-5.endpoints[0].provider: names no enabled provider',
    ],
    ['a new endpoint without its model id', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openrouter, pricing: { input: 1, output: 1 } }\n', 'models.openai/gpt-5.endpoints[0].model: is required for an endpoint that is not built in'],
    ['a new endpoint without a price', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openrouter, model: openai/gpt-5 }\n', 'models.openai/gpt-5.endpoints[0].pricing: is required for an endpoint that is not built in'],
    ['a new endpoint price without output', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openrouter, model: openai/gpt-5, pricing: { input: 1 } }\n', 'models.openai/gpt-5.endpoints[0].pricing.output: is required for a price that is not built in'],
    ['a new fast variant without input', 'models:\n  anthropic/claude-haiku-4.5:\n    endpoints:\n      - { provider: anthropic, fast: { pricing: { output: 30 } } }\n', 'models.anthropic/claude-haiku-4.5.endpoints[0].fast.pricing.input: is required for a price that is not built in'],
    ['a new model without endpoints', 'models:\n  local/m: { context_length: 8192 }\n', 'models.local/m.endpoints: must list at least one endpoint for a model that is not built in'],
    ['the same provider twice in a model', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openai }\n      - { provider: openai }\n', 'models.openai/gpt-5.endpoints[1].provider: repeats provider openai'],
    ['a fractional token limit', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openai, max_output_tokens: 1.5 }\n', 'models.openai/gpt-5.endpoints[0].max_output_tokens: must be an integer >= 1, got 1.5'],
    ['an unknown region', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openai, regions: [asia] }\n', 'models.openai/gpt-5.endpoints[0].regions[0]: must be one of global, us, europe, got "asia"'],
    ['a repeated region', 'models:\n  openai/gpt-5:\n    endpoints:\n      - { provider: openai, regions: [us, us] }\n', 'models.openai/gpt-5.endpoints[0].regions: must not repeat an item'],
    ['endpoints that are not a list', 'models:\n  openai/gpt-5: { endpoints: { provider: openai } }\n', 'models.openai/gpt-5.endpoints: must be a list, got a mapping'],
    ['an unset environment variable', 'providers:\n  anthropic: { api_key: ${ANTHROPIC_API_KEY} }\n', 'providers.anthropic.api_key: refers to the environment variable ANTHROPIC_API_KEY, which is not set'],
    ['a malformed reference', 'providers:\n  groq: { base_url: "http://${1HOST}/v1" }\n', 'providers.groq.base_url: has a malformed reference "${1HOST}"'],
    ['a YAML syntax error', 'providers:\n  anthropic: { base_url: http://127.0.0.1:9001\n', 'YAML syntax error at line'],
    ['a duplicated key', 'providers:\n  groq: {}\n  groq: {}\n', 'YAML syntax error at line 3, column 3: a key appears twice in the same mapping'],
  ])('%s', (_case, yaml, expected) => {
    const { file, error } = failure(yaml);
    expect(error.message).toContain(`Invalid configuration file ${file}:`);
    expect(error.message).toContain(expected);
    expect(error.file).toBe(file);
  });

  it('names a file that does not exist', () => {
    expect(() => loadCatalog({ configPath: '/nonexistent/switchboard.yaml', env: {} })).toThrow(
      'Invalid configuration file /nonexistent/switchboard.yaml:\n  the file does not exist',
    );
  });

  it('reports every problem at once, one per line', () => {
    const { error } = failure('providers:\n  groq: { base_url: 1, auth: magic }\nmodels:\n  openai/gpt-5: { context_length: 0 }\n');
    expect(error.problems.map((problem) => problem.path)).toEqual(['providers.groq.base_url', 'providers.groq.auth', 'models.openai/gpt-5.context_length']);
    expect(error.message.split('\n')).toHaveLength(4);
  });

  it('never quotes a secret, whatever is wrong with it', () => {
    const secrets = [
      failure('providers:\n  anthropic: { api_key: 12345678901 }\n').error,
      failure('providers:\n  anthropic: { api_key: [sk-in-a-list] }\n').error,
      failure('providers:\n  groq: { headers: { authorization: 98765432 } }\n').error,
      failure('providers:\n  bedrock: { aws: { secret_access_key: 424242424242 } }\n').error,
      failure('providers:\n  anthropic: { api_key: "sk-ant-secret" base_url: x }\n').error,
    ];
    for (const error of secrets) {
      expect(error.message).not.toMatch(/12345678901|sk-in-a-list|98765432|424242424242|sk-ant-secret/);
    }
    expect(secrets[0]?.message).toContain('providers.anthropic.api_key: must be a string, got a number');
  });
});
