/**
 * Turns merged provider and model data into the immutable, pre-indexed catalog the hot path reads: every lookup
 * is one Map access, every record is frozen, and the `GET /models` body is built here, once per stretch of time
 * between two endpoint retirements.
 */
import type {
  AwsSettings,
  Capabilities,
  CatalogEndpoint,
  CatalogModel,
  CatalogProvider,
  EndpointData,
  ModelData,
  Pricing,
} from './catalog-types.ts';
import type { DataRegion, ResidencyRegion } from '#src/data-region.ts';
import type { ProviderDraft } from './merge-config.ts';
import { toModelList, type ModelListBody } from './models-view.ts';
import { perLifecycleEpoch } from './lifecycle.ts';
import { SecretValue } from './secret-value.ts';
import { scalePricing } from './pricing.ts';
import { DEFAULT_SERVER_TOOLS_CONFIG, type ServerToolsConfig } from '#src/server-tools/server-tools-config.ts';
import type { FileDestination } from '#src/observability/destinations/destination-config.ts';
import { DEFAULT_PLUGINS_CONFIG, type PluginsConfig } from '#src/plugins/plugins-config.ts';

/** The gateway's catalog: providers, models and their endpoints, indexed for O(1) lookups. */
export interface Catalog {
  /** Every model, in catalog order. */
  readonly models: readonly CatalogModel[];
  /** Every enabled provider, built-in ones first. */
  readonly providers: readonly CatalogProvider[];
  /** The model with this slug (`anthropic/claude-sonnet-4.5`). */
  getModel(slug: string): CatalogModel | undefined;
  /** The provider with this slug (`anthropic`). */
  getProvider(slug: string): CatalogProvider | undefined;
  /** The endpoint with this id (`<model slug>@<provider slug>`). */
  getEndpoint(id: string): CatalogEndpoint | undefined;
  /** Every model whose slug starts with `<vendor>/`, for `<vendor>/*` patterns. */
  modelsOfVendor(vendor: string): readonly CatalogModel[];
  /** Every endpoint served by the provider, across models. */
  endpointsOfProvider(slug: string): readonly CatalogEndpoint[];
  /**
   * The `GET /models` response body as of `now` (epoch milliseconds): built once for each stretch of time
   * between two retirements of the catalog (the same frozen object within one), so a caller may cache what
   * it derives from it by identity. It carries no keys.
   */
  modelListAt(now: number): ModelListBody;
  /** The configuration file the catalog was built with, if any. */
  readonly sourceFile: string | null;
  /** The configuration of the gateway's own tools (its `server_tools:` section, with defaults). */
  readonly serverTools: ServerToolsConfig;
  /** Broadcast destinations the configuration file names for every workspace (or the listed ones). */
  readonly fileDestinations: readonly FileDestination[];
  /** The configuration of the plugins (its `plugins:` section: defaults per workspace and key, the moderation model). */
  readonly plugins: PluginsConfig;
}

function secret(value: string | undefined | null): SecretValue | null {
  return value ? new SecretValue(value) : null;
}

function freezeProvider(draft: ProviderDraft): CatalogProvider {
  const aws: AwsSettings | null = draft.aws
    ? Object.freeze({
        region: draft.aws.region ?? null,
        accessKeyId: secret(draft.aws.access_key_id),
        secretAccessKey: secret(draft.aws.secret_access_key),
        sessionToken: secret(draft.aws.session_token),
      })
    : null;
  return Object.freeze({
    slug: draft.slug,
    displayName: draft.display_name,
    family: draft.family,
    baseUrl: draft.base_url,
    regionalBaseUrls: Object.freeze({ ...draft.regional_base_urls }),
    regionalKeys: draft.regional_keys ?? false,
    auth: draft.auth,
    dataPolicy: Object.freeze({ ...draft.data_policy }),
    promptCaching: draft.prompt_caching,
    quirks: Object.freeze({ ...draft.quirks }),
    headers: Object.freeze({ ...draft.headers }),
    sharedKey: secret(draft.sharedKey),
    aws,
    azureApiVersion: draft.azureApiVersion,
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

function defaultRegions(provider: CatalogProvider): DataRegion[] {
  return ['global', ...(Object.keys(provider.regionalBaseUrls) as ResidencyRegion[])];
}

// The regional ids' prices: the endpoint's (configured) prices with its regional premium, for each regional id.
function regionalPricing(data: EndpointData): Partial<Record<ResidencyRegion, Pricing>> {
  const premium = data.regional_premium ?? 0;
  if (premium === 0) return {};
  const scaled = scalePricing(data.pricing, 1 + premium);
  return Object.fromEntries(Object.keys(data.regional_models ?? {}).map((region) => [region, structuredClone(scaled)]));
}

function freezeEndpoint(model: ModelData, data: EndpointData, provider: CatalogProvider): CatalogEndpoint {
  const capabilities: Capabilities = { ...model.capabilities };
  for (const key of Object.keys(capabilities) as (keyof Capabilities)[]) {
    // An endpoint can only narrow what the model can do.
    capabilities[key] = model.capabilities[key] && data.capabilities?.[key] !== false;
  }
  return deepFreeze({
    id: `${model.id}@${provider.slug}`,
    modelSlug: model.id,
    provider,
    upstreamModel: data.model,
    regionalModels: { ...data.regional_models },
    pricing: structuredClone(data.pricing),
    regionalPricing: regionalPricing(data),
    fast: data.fast ? { pricing: structuredClone(data.fast.pricing) } : null,
    dataPolicy: { ...provider.dataPolicy, ...data.data_policy },
    regions: data.regions ? [...data.regions] : defaultRegions(provider),
    quantization: data.quantization ?? null,
    contextLength: data.context_length ?? model.context_length,
    maxOutputTokens: data.max_output_tokens ?? null,
    capabilities,
    deprecatedAt: data.deprecated_at ?? null,
    retiresAt: data.retires_at ?? null,
  });
}

// The models list by lifecycle epoch: it changes only when an endpoint retires.
function modelListCache(models: readonly CatalogModel[]): (now: number) => ModelListBody {
  return perLifecycleEpoch(models.flatMap((model) => model.endpoints), (now) => deepFreeze(toModelList(models, now)));
}

/** The configuration file's sections besides providers and models, each with its defaults when absent. */
export interface CatalogSections {
  serverTools?: ServerToolsConfig;
  fileDestinations?: readonly FileDestination[];
  plugins?: PluginsConfig;
}

/** Builds the frozen catalog. Endpoints on providers that are not in `providers` (disabled ones) are dropped. */
export function buildCatalog(
  providerDrafts: ReadonlyMap<string, ProviderDraft>,
  modelData: readonly ModelData[],
  sourceFile: string | null,
  sections: CatalogSections = {},
): Catalog {
  const { serverTools = DEFAULT_SERVER_TOOLS_CONFIG, fileDestinations = [], plugins = DEFAULT_PLUGINS_CONFIG } = sections;
  const providers = new Map([...providerDrafts].map(([slug, draft]) => [slug, freezeProvider(draft)]));
  const models = new Map<string, CatalogModel>();
  const endpoints = new Map<string, CatalogEndpoint>();
  const byVendor = new Map<string, CatalogModel[]>();
  const byProvider = new Map<string, CatalogEndpoint[]>([...providers.keys()].map((slug) => [slug, []]));

  for (const data of modelData) {
    const modelEndpoints = data.endpoints.flatMap((endpointData) => {
      const provider = providers.get(endpointData.provider);
      return provider ? [freezeEndpoint(data, endpointData, provider)] : [];
    });
    // A model nobody can serve (its only providers were disabled) is not listed.
    if (modelEndpoints.length === 0) continue;
    const vendor = data.id.slice(0, data.id.indexOf('/'));
    const model: CatalogModel = Object.freeze({
      slug: data.id,
      vendor,
      name: data.name,
      contextLength: data.context_length,
      capabilities: Object.freeze({ ...data.capabilities }),
      endpoints: Object.freeze(modelEndpoints),
    });
    models.set(model.slug, model);
    byVendor.set(vendor, [...(byVendor.get(vendor) ?? []), model]);
    for (const endpoint of modelEndpoints) {
      endpoints.set(endpoint.id, endpoint);
      byProvider.get(endpoint.provider.slug)?.push(endpoint);
    }
  }

  const none: readonly never[] = Object.freeze([]);
  for (const list of [...byVendor.values(), ...byProvider.values()]) Object.freeze(list);
  const modelList = modelListCache([...models.values()]);
  return Object.freeze({
    models: Object.freeze([...models.values()]),
    providers: Object.freeze([...providers.values()]),
    getModel: (slug: string) => models.get(slug),
    getProvider: (slug: string) => providers.get(slug),
    getEndpoint: (id: string) => endpoints.get(id),
    modelsOfVendor: (vendor: string) => byVendor.get(vendor) ?? none,
    endpointsOfProvider: (slug: string) => byProvider.get(slug) ?? none,
    modelListAt: modelList,
    sourceFile,
    serverTools,
    fileDestinations: Object.freeze([...fileDestinations]),
    plugins,
  });
}
