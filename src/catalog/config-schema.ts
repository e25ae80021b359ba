/**
 * The shape of the configuration file (`SWITCHBOARD_CONFIG`), checked field by field. Field names are the
 * file's (snake_case, like `GET /models`). Whether a field is required can depend on whether it overrides a
 * built-in entry or adds a new one; that is checked when the file is merged (see merge-config.ts).
 */
import {
  boolean,
  dictionary,
  list,
  nullable,
  number,
  oneOf,
  record,
  string,
  url,
  type ReadType,
} from './config-readers.ts';
import { DATA_REGIONS } from '#src/data-region.ts';
import { readServerToolsSection } from '#src/server-tools/server-tools-config-schema.ts';
import { readObservabilityConfig } from '#src/observability/destinations/destination-config.ts';
import { readPluginsSection } from '#src/plugins/plugins-config-schema.ts';

/** Provider slugs: lowercase letters, digits and dashes. */
export const PROVIDER_SLUG = /^[a-z0-9][a-z0-9-]*$/;
/** Model slugs: `<vendor>/<model>`, the pattern the auto-router's patterns also use. */
export const MODEL_SLUG = /^[a-z0-9][a-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*$/;

const API_FAMILIES = ['anthropic', 'openai-chat', 'openai-responses', 'openai-compatible', 'google', 'bedrock', 'azure'] as const;
const AUTH_STYLES = ['x-api-key', 'bearer', 'x-goog-api-key', 'api-key', 'aws', 'none'] as const;
const QUANTIZATIONS = ['fp4', 'fp6', 'fp8', 'int4', 'int8', 'bf16', 'fp16', 'fp32'] as const;

const price = () => number({ minimum: 0 });
const tokenCount = () => number({ minimum: 1, integer: true });

const dataPolicy = record({ zdr: boolean(), data_collection: oneOf(['allow', 'deny'] as const) });
const capabilities = record({
  tools: boolean(),
  vision: boolean(),
  pdf: boolean(),
  thinking: boolean(),
  caching: boolean(),
  structured_output: boolean(),
});
const regionalHosts = record({ us: url(), europe: url() });

const longContextPricing = record(
  {
    threshold_tokens: tokenCount(),
    input: price(),
    output: price(),
    cache_read: nullable(price()),
    cache_write: nullable(price()),
    cache_write_1h: nullable(price()),
  },
  ['threshold_tokens', 'input', 'output'],
);

/** Prices per million tokens; on an existing endpoint, the fields given replace those of the built-in price. */
const pricing = record({
  input: price(),
  output: price(),
  cache_read: nullable(price()),
  cache_write: nullable(price()),
  cache_write_1h: nullable(price()),
  // USD per search, not per million tokens.
  web_search_request: nullable(price()),
  // USD per request by search context size (Perplexity's request fee).
  search_request: nullable(record({ low: price(), medium: price(), high: price() }, ['low', 'medium', 'high'])),
  long_context: nullable(longContextPricing),
});

// An RFC 3339 date-time, as `GET /models` gives `deprecated_at` and `retires_at`.
const dateTime = () =>
  string({ pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, expected: 'an RFC 3339 date-time such as 2026-11-30T00:00:00Z' });

const endpoint = record(
  {
    provider: string({ pattern: PROVIDER_SLUG, expected: 'a provider slug (lowercase letters, digits, dashes)' }),
    enabled: boolean(),
    model: string({ minLength: 1 }),
    pricing,
    fast: nullable(record({ pricing }, ['pricing'])),
    data_policy: dataPolicy,
    regions: list(oneOf(DATA_REGIONS), { minItems: 1, unique: true }),
    regional_models: record({ us: string({ minLength: 1 }), europe: string({ minLength: 1 }) }),
    quantization: nullable(oneOf(QUANTIZATIONS)),
    context_length: tokenCount(),
    max_output_tokens: nullable(tokenCount()),
    capabilities,
    // The provider's retirement of this model id (src/catalog/lifecycle.ts); null clears a built-in one.
    deprecated_at: nullable(dateTime()),
    retires_at: nullable(dateTime()),
  },
  ['provider'],
);

const model = record({
  enabled: boolean(),
  name: string({ minLength: 1 }),
  context_length: tokenCount(),
  capabilities,
  replace_endpoints: boolean(),
  endpoints: list(endpoint),
});

const quirks = record({
  include_usage: boolean(),
  supports_structured_outputs: boolean(),
  supports_multi_part_tool_content: boolean(),
  reasoning_field: oneOf(['reasoning_content', 'reasoning', 'none'] as const),
  tool_call_id_max_length: tokenCount(),
});

const provider = record({
  enabled: boolean(),
  display_name: string({ minLength: 1 }),
  family: oneOf(API_FAMILIES),
  base_url: url(),
  regional_base_urls: regionalHosts,
  regional_keys: boolean(),
  auth: oneOf(AUTH_STYLES),
  // The gateway-owned (shared) key. An empty string means none.
  api_key: string({ secret: true }),
  data_policy: dataPolicy,
  prompt_caching: oneOf(['explicit', 'automatic', 'none'] as const),
  headers: dictionary(string({ secret: true })),
  quirks,
  aws: record({
    region: string({ pattern: /^[a-z]{2}(-[a-z]+)+-\d+$/, expected: 'an AWS region such as us-east-1' }),
    access_key_id: string({ secret: true }),
    secret_access_key: string({ secret: true }),
    session_token: string({ secret: true }),
  }),
  azure: record({ api_version: string({ minLength: 1 }) }),
});

/** The whole file. Every section is optional; unknown top-level keys are problems. */
export const readCatalogConfig = record({
  providers: dictionary(provider, { keyPattern: PROVIDER_SLUG, expectedKey: 'a provider slug (lowercase letters, digits, dashes)' }),
  models: dictionary(model, { keyPattern: MODEL_SLUG, expectedKey: 'a model slug of the form <vendor>/<model>' }),
  server_tools: readServerToolsSection,
  // Broadcast destinations for every workspace: src/observability/destinations/destination-config.ts.
  observability: readObservabilityConfig,
  plugins: readPluginsSection,
});

/** The configuration file after its shape was checked. */
export type CatalogConfig = ReadType<typeof readCatalogConfig>;
/** One `providers:` entry. */
export type ProviderConfig = ReadType<typeof provider>;
/** One `models:` entry. */
export type ModelConfig = ReadType<typeof model>;
/** One entry of a model's `endpoints:`. */
export type EndpointConfig = ReadType<typeof endpoint>;
/** A (possibly partial) `pricing:` block. */
export type PricingConfig = ReadType<typeof pricing>;
