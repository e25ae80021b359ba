/**
 * The catalog as the routing planner sees it: each model reduced to the planner's own small types, built
 * once per catalog (the catalog is immutable), with aliases for the bare Anthropic model ids that
 * Claude Code and Anthropic SDKs send (`claude-sonnet-4-5-20250929` resolves to the catalog's slug). Each
 * endpoint also carries where its calls go in every region, resolved here once, so that turning a planned
 * attempt into a call looks nothing up.
 */
import type { Catalog } from '#src/catalog/index.ts';
import type { CatalogEndpoint, CatalogModel } from '#src/catalog/catalog-types.ts';
import type { PricingByModel } from '#src/catalog/pricing.ts';
import { locateEndpoint, type EndpointLocation } from '#src/catalog/locate-endpoint.ts';
import { withoutDateSuffix } from '#src/catalog/model-id.ts';
import { perLifecycleEpoch } from '#src/catalog/lifecycle.ts';
import { cheapestPricingAt, modelLimitsAt, servingCapabilitiesAt } from '#src/catalog/serving-figures.ts';
import { DATA_REGIONS, RESIDENCY_REGIONS, type DataRegion, type ResidencyRegion } from '#src/data-region.ts';
import type { PlanEndpoint, PlanModel, RequestParameter } from '#src/routing/plan-types.ts';
import type { AutoRouterCandidate } from '#src/routing/auto-router/auto-router.ts';

/** A planner endpoint with the catalog endpoint behind it and where its calls go, per region. */
export interface CatalogPlanEndpoint extends PlanEndpoint {
  catalog: CatalogEndpoint;
  /** The host and model id serving each request region; null where the endpoint cannot serve it. */
  locations: Readonly<Record<DataRegion, EndpointLocation | null>>;
  /**
   * Where a BYOK credential declaring a residency region sends the call when the endpoint's own regions lack
   * it (the interface's `declared_region` rule): the provider's host for that region, or its base URL.
   */
  declaredLocations: Readonly<Partial<Record<ResidencyRegion, EndpointLocation>>>;
  /**
   * The standard prices of every endpoint of the endpoint's provider, by upstream model id (regional ids too):
   * what usage the upstream reports for another model (an advisor's, a fallback's iteration) costs. One map per
   * provider, shared by its endpoints.
   */
  modelPricing: PricingByModel;
}

/** The planner's view of a catalog. */
export interface CatalogPlanView {
  /** A model by slug or alias. */
  model(slugOrAlias: string): PlanModel<CatalogPlanEndpoint> | undefined;
  /** The aliases that name a slug (each also with a `-YYYYMMDD` date suffix, as `model` takes them). */
  aliasesOf(slug: string): readonly string[];
  /** Providers holding a gateway-owned key. */
  sharedProviders: ReadonlySet<string>;
  /**
   * Every model some endpoint still serves at `now` (epoch milliseconds) as an auto-router candidate, priced
   * at its cheapest such endpoint, its context the largest of theirs, able to do what one of them can. The same
   * list (by identity) between two retirements of the catalog.
   */
  autoCandidatesAt(now: number): readonly AutoRouterCandidate[];
}

// The auto-router's candidates at a time: a retired endpoint's price, window or capabilities would rank or admit
// a model by what no request can get from it any more.
function candidatesAt(models: readonly CatalogModel[], now: number): AutoRouterCandidate[] {
  return models.flatMap((model) => {
    const pricing = cheapestPricingAt(model, now);
    const capabilities = servingCapabilitiesAt(model, now);
    if (pricing === null || capabilities === null) return [];
    return [{ slug: model.slug, pricing, capabilities, contextLength: modelLimitsAt(model, now).contextLength }];
  });
}


// Families whose APIs take top_k; OpenAI's do not.
const TOP_K_FAMILIES = new Set(['anthropic', 'google', 'bedrock']);
// OpenAI's Responses API has no stop sequences: a request with them answers 400 there (the AI SDK vendor
// profile), so `require_parameters` must not offer such an endpoint either.
const NO_STOP_SEQUENCES_FAMILIES = new Set(['openai-responses']);

function supportedParameters(endpoint: CatalogEndpoint): RequestParameter[] {
  const { capabilities } = endpoint;
  const supported: RequestParameter[] = ['temperature', 'top_p'];
  if (!NO_STOP_SEQUENCES_FAMILIES.has(endpoint.provider.family)) supported.push('stop_sequences');
  if (TOP_K_FAMILIES.has(endpoint.provider.family)) supported.push('top_k');
  if (capabilities.tools) supported.push('tools', 'tool_choice');
  if (capabilities.thinking) supported.push('thinking');
  if (capabilities.vision) supported.push('images');
  if (capabilities.pdf) supported.push('pdf');
  // An OpenAI-compatible vendor without schemas has JSON mode only, which the adapter refuses to stand in.
  const takesJsonSchema = endpoint.provider.family !== 'openai-compatible' || endpoint.provider.quirks.supportsStructuredOutputs === true;
  if (capabilities.structured_output && takesJsonSchema) supported.push('structured_output');
  return supported;
}

// Bedrock inference profiles (`global.`, `us.`, `eu.`, `apac.` model ids) route across regions, which the
// interface excludes from regional use of a credential's declared region.
const CROSS_REGION_PROFILE = /^(global|us|eu|apac)\./;

function locations(endpoint: CatalogEndpoint): Pick<CatalogPlanEndpoint, 'locations' | 'declaredLocations'> {
  const located = Object.fromEntries(DATA_REGIONS.map((region) => [region, locateEndpoint(endpoint, region)])) as Record<DataRegion, EndpointLocation | null>;
  const declared: Partial<Record<ResidencyRegion, EndpointLocation>> = {};
  for (const region of RESIDENCY_REGIONS) {
    const baseUrl = endpoint.provider.regionalBaseUrls[region] ?? endpoint.provider.baseUrl;
    if (baseUrl) declared[region] = { baseUrl, upstreamModel: endpoint.regionalModels[region] ?? endpoint.upstreamModel };
  }
  return { locations: located, declaredLocations: declared };
}

function toPlanEndpoint(model: CatalogModel, endpoint: CatalogEndpoint, modelPricing: PricingByModel): CatalogPlanEndpoint {
  const { pricing } = endpoint;
  const crossRegionProfile = endpoint.provider.family === 'bedrock' && CROSS_REGION_PROFILE.test(endpoint.upstreamModel);
  return {
    model: model.slug,
    provider: endpoint.provider.slug,
    providerName: endpoint.provider.displayName,
    upstreamModel: endpoint.upstreamModel,
    pricing: { input: pricing.input, output: pricing.output, cache_read: pricing.cache_read, cache_write: pricing.cache_write },
    fast: endpoint.fast ? { pricing: { input: endpoint.fast.pricing.input, output: endpoint.fast.pricing.output } } : null,
    dataPolicy: { zdr: endpoint.dataPolicy.zdr, dataCollection: endpoint.dataPolicy.data_collection },
    regions: endpoint.regions,
    supportedParameters: supportedParameters(endpoint),
    contextLength: endpoint.contextLength,
    retiresAt: endpoint.retiresAt === null ? null : Date.parse(endpoint.retiresAt),
    ...(crossRegionProfile ? { regionalExclusions: { crossRegionProfile } } : {}),
    catalog: endpoint,
    modelPricing,
    ...locations(endpoint),
  };
}

// Each provider's endpoint prices by upstream model id (the first endpoint listing an id wins).
function pricingByProvider(catalog: Catalog): Map<string, PricingByModel> {
  const byProvider = new Map<string, PricingByModel>();
  for (const provider of catalog.providers) {
    const prices = new Map<string, CatalogEndpoint['pricing']>();
    for (const endpoint of catalog.endpointsOfProvider(provider.slug)) {
      if (!prices.has(endpoint.upstreamModel)) prices.set(endpoint.upstreamModel, endpoint.pricing);
      for (const [region, id] of Object.entries(endpoint.regionalModels) as [ResidencyRegion, string][]) {
        if (!prices.has(id)) prices.set(id, endpoint.regionalPricing[region] ?? endpoint.pricing);
      }
    }
    byProvider.set(provider.slug, prices);
  }
  return byProvider;
}

const NO_PRICES: PricingByModel = new Map();

/** Builds the planner's view of a catalog (call once per catalog). */
export function createCatalogPlanView(catalog: Catalog): CatalogPlanView {
  const models = new Map<string, PlanModel<CatalogPlanEndpoint>>();
  const aliases = new Map<string, string>();
  const prices = pricingByProvider(catalog);
  for (const model of catalog.models) {
    const endpoints = model.endpoints.map((endpoint) => toPlanEndpoint(model, endpoint, prices.get(endpoint.provider.slug) ?? NO_PRICES));
    models.set(model.slug, { slug: model.slug, endpoints });
    for (const endpoint of model.endpoints) {
      if (endpoint.provider.family !== 'anthropic') continue;
      if (!aliases.has(endpoint.upstreamModel)) aliases.set(endpoint.upstreamModel, model.slug);
    }
    // `anthropic/claude-sonnet-4.5` also answers to `claude-sonnet-4-5`.
    const [vendor, name] = model.slug.split('/');
    if (vendor === 'anthropic' && name && !aliases.has(name.replaceAll('.', '-'))) aliases.set(name.replaceAll('.', '-'), model.slug);
  }
  const aliasesBySlug = new Map<string, string[]>();
  for (const [alias, slug] of aliases) aliasesBySlug.set(slug, [...(aliasesBySlug.get(slug) ?? []), alias]);
  const sharedProviders = new Set(catalog.providers.filter((provider) => provider.sharedKey !== null || provider.auth === 'none' || provider.aws?.accessKeyId).map((provider) => provider.slug));
  return {
    // The candidates change only when an endpoint retires.
    autoCandidatesAt: perLifecycleEpoch(catalog.models.flatMap((model) => model.endpoints), (now) => Object.freeze(candidatesAt(catalog.models, now))),
    model(slugOrAlias) {
      const direct = models.get(slugOrAlias);
      if (direct || slugOrAlias.includes('/')) return direct;
      const slug = aliases.get(slugOrAlias) ?? aliases.get(withoutDateSuffix(slugOrAlias));
      return slug ? models.get(slug) : undefined;
    },
    aliasesOf(slug) {
      return aliasesBySlug.get(slug) ?? [];
    },
    sharedProviders,
  };
}
