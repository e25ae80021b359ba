/**
 * The `GET /models` view of the catalog: the wire shape of `ModelList`, built from the frozen records. It is
 * built from an explicit list of fields, so nothing configuration-only (keys, headers, AWS settings) can leak.
 * @see ModelList in openapi/components/schemas/models.yaml
 */
import type { Model, ModelEndpoint, ModelList } from '#src/api-types.ts';
import type { CatalogEndpoint, CatalogModel, Pricing } from './catalog-types.ts';
import type { ResidencyRegion } from '#src/data-region.ts';
import { modelsEnvelope } from './models-page.ts';
import { endpointLifecycle, modelLifecycle } from './lifecycle.ts';
import { modelFeaturesAt, modelLimitsAt } from './serving-figures.ts';

/** One endpoint in `GET /models`. */
export type ModelEndpointView = ModelEndpoint;

/** One model in `GET /models`. */
export type ModelView = Model;

/** The `GET /models` response body. */
export type ModelListBody = ModelList;

// `regional_pricing`, present only where some region pays other prices than `pricing`.
function regionalPricingView(endpoint: CatalogEndpoint): { regional_pricing?: Partial<Record<ResidencyRegion, Pricing>> } {
  const entries = Object.entries(endpoint.regionalPricing) as [ResidencyRegion, Pricing][];
  return entries.length === 0 ? {} : { regional_pricing: Object.fromEntries(entries.map(([region, pricing]) => [region, pricingView(pricing)])) };
}

function pricingView(pricing: Pricing): Pricing {
  const view: Pricing = { input: pricing.input, output: pricing.output, cache_read: pricing.cache_read, cache_write: pricing.cache_write };
  if (pricing.cache_write_1h !== undefined) view.cache_write_1h = pricing.cache_write_1h;
  if (pricing.web_search_request !== undefined) view.web_search_request = pricing.web_search_request;
  if (pricing.search_request !== undefined) view.search_request = pricing.search_request ? { ...pricing.search_request } : null;
  if (pricing.long_context !== undefined) view.long_context = pricing.long_context ? { ...pricing.long_context } : null;
  return view;
}

// The catalog records no release dates: the epoch is what Anthropic's ModelInfo documents for an unknown one.
const UNKNOWN_RELEASE = '1970-01-01T00:00:00Z';

// Anthropic's ModelInfo `line` of a Claude model (its `ModelLine` values: haiku, sonnet, opus, fable, mythos),
// read off the catalog's slug; other vendors' models have none.
// @see ModelLine in @anthropic-ai/sdk resources/models.d.ts (1.14.0)
const CLAUDE_LINE = /^anthropic\/claude-(haiku|sonnet|opus|fable|mythos)-/;

function claudeLine(slug: string): ModelView['line'] {
  return (CLAUDE_LINE.exec(slug)?.[1] as ModelView['line'] | undefined) ?? null;
}

/** One endpoint in `GET /models`, its lifecycle as of `now` (epoch milliseconds). */
function endpointView(endpoint: CatalogEndpoint, now: number): ModelEndpointView {
  return {
    provider: endpoint.provider.slug,
    provider_name: endpoint.provider.displayName,
    model: endpoint.upstreamModel,
    pricing: pricingView(endpoint.pricing),
    ...regionalPricingView(endpoint),
    fast: endpoint.fast ? { pricing: pricingView(endpoint.fast.pricing) } : null,
    data_policy: { ...endpoint.dataPolicy },
    regions: [...endpoint.regions],
    quantization: endpoint.quantization,
    context_length: endpoint.contextLength,
    max_output_tokens: endpoint.maxOutputTokens,
    features: { ...endpoint.capabilities },
    ...endpointLifecycle(endpoint, now),
  };
}

/**
 * The `GET /models` body for these models, in the given order: the whole catalog as one page, each model's
 * and endpoint's lifecycle as of `now` (epoch milliseconds).
 */
export function toModelList(models: readonly CatalogModel[], now: number): ModelListBody {
  return modelsEnvelope(
    models.map((model) => {
      const endpoints = model.endpoints.map((endpoint) => endpointView(endpoint, now));
      // A retired endpoint's window and limit are nothing a request can get any more (src/catalog/serving-figures.ts).
      const limits = modelLimitsAt(model, now);
      return {
        id: model.slug,
        type: 'model',
        name: model.name,
        // Anthropic's ModelInfo name for it, which the Anthropic SDKs' `models.list()` types and applications read.
        display_name: model.name,
        created_at: UNKNOWN_RELEASE,
        context_length: limits.contextLength,
        // Anthropic's ModelInfo names for the context window and the `max_tokens` ceiling.
        max_input_tokens: limits.contextLength,
        max_tokens: limits.maxOutputTokens,
        // Anthropic's capability matrix is not the catalog's to claim (see the spec); `features` is what it knows.
        capabilities: null,
        // The model lives while some endpoint serves it (src/catalog/lifecycle.ts).
        ...modelLifecycle(endpoints),
        line: claudeLine(model.slug),
        // As the auto-router reads them: what some endpoint still serving the model can do.
        features: modelFeaturesAt(model, now),
        endpoints,
      };
    }),
    false,
  );
}
