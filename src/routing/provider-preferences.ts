/**
 * `provider` routing preferences, normalised once per request: defaults applied, the deprecated `route` alias
 * folded into the sort partition, provider names lower-cased for matching.
 * @see ProviderPreferences in openapi/components/schemas/routing.yaml
 */
import type { MessageRequest } from '#src/api-types.ts';
import type { PlanEndpoint, PlanPricing } from '#src/routing/plan-types.ts';

/** What endpoints are ordered by under `provider.sort`. */
export type SortKey = 'price' | 'throughput' | 'latency';

/** `model`: sort within each model, models in request order; `none`: sort every model's endpoints together. */
export type SortPartition = 'model' | 'none';

/** The request's provider preferences with every default filled in. */
export interface NormalizedPreferences {
  /** Lower-cased provider names to try first, in this order. */
  order: readonly string[];
  /** Lower-cased provider names allowed; null when unrestricted. */
  only: readonly string[] | null;
  ignore: readonly string[];
  allowFallbacks: boolean;
  requireParameters: boolean;
  denyDataCollection: boolean;
  zdr: boolean;
  maxPrice: { prompt?: number; completion?: number } | null;
  sortBy: SortKey | null;
  /** Only meaningful with `sortBy`; without a sort every model is spread on its own. */
  partition: SortPartition;
}

// Most requests name no provider preferences: what they read as is shared, not made per request.
const NO_NAMES: readonly string[] = Object.freeze([]);
const NO_PREFERENCES: NonNullable<MessageRequest['provider']> = Object.freeze({});

function lower(names: readonly string[] | undefined): readonly string[] {
  return names === undefined || names.length === 0 ? NO_NAMES : names.map((name) => name.toLowerCase());
}

/**
 * Applies defaults to `request.provider`. The deprecated `route` maps onto the partition (`fallback` to
 * `model`, `sort` to `none`); an explicit `provider.sort.partition` wins over it.
 */
export function normalizePreferences(request: MessageRequest): NormalizedPreferences {
  const provider = request.provider ?? NO_PREFERENCES;
  const sort = provider.sort;
  const sortBy: SortKey | null = sort === undefined ? null : typeof sort === 'string' ? sort : sort.by;
  const explicitPartition = typeof sort === 'object' ? sort.partition : undefined;
  const routePartition: SortPartition | undefined =
    request.route === 'sort' ? 'none' : request.route === 'fallback' ? 'model' : undefined;
  const maxPrice = provider.max_price;
  return {
    order: lower(provider.order),
    only: provider.only === undefined ? null : lower(provider.only),
    ignore: lower(provider.ignore),
    allowFallbacks: provider.allow_fallbacks ?? true,
    requireParameters: provider.require_parameters ?? false,
    denyDataCollection: provider.data_collection === 'deny',
    zdr: provider.zdr === true,
    maxPrice: maxPrice && (maxPrice.prompt !== undefined || maxPrice.completion !== undefined) ? maxPrice : null,
    sortBy,
    partition: explicitPartition ?? routePartition ?? 'model',
  };
}

/** True when `names` (lower-cased) mentions the endpoint's provider by slug or by display name. */
export function namesProvider(names: readonly string[], endpoint: PlanEndpoint): boolean {
  return names.includes(endpoint.provider.toLowerCase()) || names.includes(endpoint.providerName.toLowerCase());
}

/** The position of the endpoint's provider in `provider.order`, or -1 when it is not named. */
export function orderIndex(order: readonly string[], endpoint: PlanEndpoint): number {
  const bySlug = order.indexOf(endpoint.provider.toLowerCase());
  return bySlug >= 0 ? bySlug : order.indexOf(endpoint.providerName.toLowerCase());
}

/** True when the pricing is within `provider.max_price` (both ceilings in USD per million tokens). */
export function withinMaxPrice(pricing: PlanPricing, maxPrice: NormalizedPreferences['maxPrice']): boolean {
  if (maxPrice === null) return true;
  if (maxPrice.prompt !== undefined && pricing.input > maxPrice.prompt) return false;
  if (maxPrice.completion !== undefined && pricing.output > maxPrice.completion) return false;
  return true;
}

/** Human-readable form of the ceiling, for error messages. */
export function describeMaxPrice(maxPrice: NonNullable<NormalizedPreferences['maxPrice']>): string {
  const parts: string[] = [];
  if (maxPrice.prompt !== undefined) parts.push(`prompt $${maxPrice.prompt}/M`);
  if (maxPrice.completion !== undefined) parts.push(`completion $${maxPrice.completion}/M`);
  return parts.join(', ');
}
