/** The catalog's public surface: loading, lookups, pricing and the `GET /models` view. */
export { loadCatalog, parseCatalogConfig, catalogFromConfig, type LoadCatalogOptions } from './load-catalog.ts';
export type { Catalog } from './build-catalog.ts';
export { CatalogConfigError } from './catalog-config-error.ts';
export type { ConfigProblem } from './config-readers.ts';
export { locateEndpoint, type EndpointLocation } from './locate-endpoint.ts';
export {
  computeCost,
  computeAnthropicCost,
  type PricingByModel,
  selectPricing,
  usageFromAnthropic,
  usageFromInclusivePrompt,
  usageFromLanguageModelUsage,
  type TokenUsage,
  type Speed,
  type AnthropicUsageFields,
  type AnthropicIterationUsage,
} from './pricing.ts';
export type { ModelListBody, ModelView, ModelEndpointView } from './models-view.ts';
export { SecretValue } from './secret-value.ts';
export type * from './catalog-types.ts';
