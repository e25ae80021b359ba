/**
 * Merges the checked configuration file onto the built-in presets and models.
 *
 * Override semantics (documented in the README):
 * - `providers.<slug>`: for a built-in provider, each field given replaces the preset's (`data_policy`,
 *   `regional_base_urls` and `quirks` merge field by field); a new slug declares a provider and needs `family`
 *   and `base_url`. `enabled: false` removes a provider and every endpoint on it.
 * - `models.<slug>`: for a built-in model, fields given replace the built-in ones (`capabilities` field by
 *   field); `endpoints` entries merge by `provider` into the built-in list: an entry for a provider already
 *   serving the model overrides that endpoint (`pricing` field by field), a new provider adds an endpoint (it
 *   needs `model` and `pricing.input` and `pricing.output`), `enabled: false` removes it. `replace_endpoints:
 *   true` drops the built-in endpoints first. A new slug declares a model and needs at least one endpoint; its
 *   `context_length` may be omitted (unknown: nothing filters on it). `enabled: false` removes a model.
 */
import type { Capabilities, EndpointData, ModelData, Pricing, ProviderPreset } from './catalog-types.ts';
import { closestName } from './closest-name.ts';
import { childPath, type ConfigProblem } from './config-readers.ts';
import type { CatalogConfig, EndpointConfig, ModelConfig, PricingConfig, ProviderConfig } from './config-schema.ts';

/** A provider after merging: the preset's data plus what only configuration gives (keys, headers, cloud settings). */
export interface ProviderDraft extends ProviderPreset {
  sharedKey: string | null;
  headers: Record<string, string>;
  aws: NonNullable<ProviderConfig['aws']> | null;
  azureApiVersion: string | null;
}

const NO_CAPABILITIES: Capabilities = { tools: false, vision: false, pdf: false, thinking: false, caching: false, structured_output: false };

const DEFAULT_AUTH: Record<ProviderPreset['family'], ProviderPreset['auth']> = {
  anthropic: 'x-api-key',
  'openai-chat': 'bearer',
  'openai-responses': 'bearer',
  'openai-compatible': 'bearer',
  google: 'x-goog-api-key',
  bedrock: 'aws',
  azure: 'api-key',
};

function mergeProvider(preset: ProviderPreset | undefined, slug: string, config: ProviderConfig, path: string, problems: ConfigProblem[]): ProviderDraft | null {
  const family = config.family ?? preset?.family;
  const baseUrl = config.base_url ?? preset?.base_url ?? null;
  if (!preset && !family) problems.push({ path: childPath(path, 'family'), message: 'is required for a provider that is not built in' });
  if (!preset && !config.base_url) problems.push({ path: childPath(path, 'base_url'), message: 'is required for a provider that is not built in' });
  if (!family) return null;
  const quirks = config.quirks;
  return {
    slug,
    display_name: config.display_name ?? preset?.display_name ?? slug,
    family,
    base_url: baseUrl,
    regional_base_urls: { ...preset?.regional_base_urls, ...config.regional_base_urls },
    regional_keys: config.regional_keys ?? preset?.regional_keys ?? false,
    auth: config.auth ?? preset?.auth ?? DEFAULT_AUTH[family],
    // A provider nobody vouched for may keep prompts: zdr and data_collection filters exclude it until declared.
    data_policy: { zdr: false, data_collection: 'allow', ...preset?.data_policy, ...config.data_policy },
    prompt_caching: config.prompt_caching ?? preset?.prompt_caching ?? 'none',
    quirks: {
      ...preset?.quirks,
      ...(quirks?.include_usage !== undefined && { includeUsage: quirks.include_usage }),
      ...(quirks?.supports_structured_outputs !== undefined && { supportsStructuredOutputs: quirks.supports_structured_outputs }),
      ...(quirks?.supports_multi_part_tool_content !== undefined && { supportsMultiPartToolContent: quirks.supports_multi_part_tool_content }),
      ...(quirks?.reasoning_field !== undefined && { reasoningField: quirks.reasoning_field }),
      ...(quirks?.tool_call_id_max_length !== undefined && { toolCallIdMaxLength: quirks.tool_call_id_max_length }),
    },
    ...(preset?.docs !== undefined && { docs: preset.docs }),
    sharedKey: config.api_key ? config.api_key : null,
    headers: { ...preset?.quirks?.headers, ...config.headers },
    aws: config.aws ?? null,
    azureApiVersion: config.azure?.api_version ?? null,
  };
}

/** Merges `providers:` onto the presets. Disabled providers are left out. */
export function mergeProviders(presets: readonly ProviderPreset[], config: CatalogConfig, problems: ConfigProblem[]): Map<string, ProviderDraft> {
  const drafts = new Map<string, ProviderDraft>();
  const configured = config.providers ?? {};
  for (const preset of presets) {
    const draft = mergeProvider(preset, preset.slug, configured[preset.slug] ?? {}, `providers.${preset.slug}`, problems);
    if (draft && configured[preset.slug]?.enabled !== false) drafts.set(preset.slug, draft);
  }
  for (const [slug, providerConfig] of Object.entries(configured)) {
    if (drafts.has(slug) || presets.some((preset) => preset.slug === slug) || providerConfig.enabled === false) continue;
    const own: ConfigProblem[] = [];
    const draft = mergeProvider(undefined, slug, providerConfig, `providers.${slug}`, own);
    const meant = own.length > 0 ? closestName(slug, presets.map((preset) => preset.slug)) : undefined;
    if (meant) problems.push({ path: `providers.${slug}`, message: `is not a built-in provider (did you mean ${meant}?); a new provider needs family and base_url` });
    else problems.push(...own);
    if (draft) drafts.set(slug, draft);
  }
  return drafts;
}

function mergePricing(base: Pricing | undefined, config: PricingConfig | undefined, path: string, problems: ConfigProblem[]): Pricing | null {
  if (!base) {
    if (!config) {
      problems.push({ path, message: 'is required for an endpoint that is not built in' });
      return null;
    }
    for (const field of ['input', 'output'] as const) {
      if (config[field] === undefined) problems.push({ path: childPath(path, field), message: 'is required for a price that is not built in' });
    }
    if (config.input === undefined || config.output === undefined) return null;
  }
  const merged = { cache_read: null, cache_write: null, ...base, ...config };
  // A tier given in the file replaces the built-in one whole; its cache prices left out are null, as the base
  // tier's are (those tokens cost the tier's input price), so GET /models shows the spec's LongContextPricing.
  if (config?.long_context) merged.long_context = { cache_read: null, cache_write: null, ...config.long_context };
  return merged as Pricing;
}

function mergeEndpoint(base: EndpointData | undefined, config: EndpointConfig, path: string, problems: ConfigProblem[]): EndpointData | null {
  if (!base && config.model === undefined) problems.push({ path: childPath(path, 'model'), message: 'is required for an endpoint that is not built in' });
  const pricing = mergePricing(base?.pricing, config.pricing, childPath(path, 'pricing'), problems);
  let fast = base?.fast ?? null;
  if (config.fast === null) fast = null;
  else if (config.fast) {
    const fastPricing = mergePricing(base?.fast?.pricing, config.fast.pricing, childPath(childPath(path, 'fast'), 'pricing'), problems);
    fast = fastPricing ? { pricing: fastPricing } : null;
  }
  const model = config.model ?? base?.model;
  if (!pricing || model === undefined) return null;
  const { enabled: _enabled, capabilities, data_policy: dataPolicy, ...fields } = config;
  return {
    ...base,
    ...fields,
    model,
    pricing,
    fast,
    data_policy: { ...base?.data_policy, ...dataPolicy },
    capabilities: { ...base?.capabilities, ...capabilities },
  };
}

function mergeModel(base: ModelData | undefined, slug: string, config: ModelConfig, path: string, providers: ReadonlyMap<string, ProviderDraft>, problems: ConfigProblem[]): ModelData | null {
  const endpoints = config.replace_endpoints ? [] : [...(base?.endpoints ?? [])];
  const seen = new Set<string>();
  (config.endpoints ?? []).forEach((endpointConfig, index) => {
    const endpointPath = `${childPath(path, 'endpoints')}[${index}]`;
    if (seen.has(endpointConfig.provider)) {
      problems.push({ path: childPath(endpointPath, 'provider'), message: `repeats provider ${endpointConfig.provider}: a model has at most one endpoint per provider` });
      return;
    }
    seen.add(endpointConfig.provider);
    if (endpointConfig.enabled !== false && !providers.has(endpointConfig.provider)) {
      problems.push({ path: childPath(endpointPath, 'provider'), message: `names no enabled provider (${endpointConfig.provider} is neither built in nor declared under providers)` });
      return;
    }
    const position = endpoints.findIndex((existing) => existing.provider === endpointConfig.provider);
    if (endpointConfig.enabled === false) {
      if (position >= 0) endpoints.splice(position, 1);
      return;
    }
    const merged = mergeEndpoint(endpoints[position], endpointConfig, endpointPath, problems);
    if (!merged) return;
    if (position >= 0) endpoints[position] = merged;
    else endpoints.push(merged);
  });
  if (!base && endpoints.length === 0) problems.push({ path: childPath(path, 'endpoints'), message: 'must list at least one endpoint for a model that is not built in' });
  return {
    id: slug,
    name: config.name ?? base?.name ?? slug,
    context_length: config.context_length ?? base?.context_length ?? null,
    capabilities: { ...(base?.capabilities ?? NO_CAPABILITIES), ...config.capabilities },
    endpoints,
  };
}

/** Merges `models:` onto the built-in models. Disabled models are left out; endpoints must name a merged provider. */
export function mergeModels(builtIn: readonly ModelData[], config: CatalogConfig, providers: ReadonlyMap<string, ProviderDraft>, problems: ConfigProblem[]): ModelData[] {
  const configured = config.models ?? {};
  const merged = new Map<string, ModelData>(builtIn.map((model) => [model.id, model]));
  for (const [slug, modelConfig] of Object.entries(configured)) {
    if (modelConfig.enabled === false) {
      merged.delete(slug);
      continue;
    }
    const base = merged.get(slug);
    const own: ConfigProblem[] = [];
    const model = mergeModel(base, slug, modelConfig, `models.${slug}`, providers, own);
    const meant = !base && own.length > 0 ? closestName(slug, builtIn.map((entry) => entry.id)) : undefined;
    if (meant) problems.push({ path: `models.${slug}`, message: `is not a built-in model (did you mean ${meant}?); a new model needs endpoints with model and pricing` });
    else problems.push(...own);
    if (model) merged.set(slug, model);
  }
  return [...merged.values()];
}
