/**
 * Where an attempt on an endpoint goes for a data region: the base URL and the provider's model id. The region
 * is the request's (a regional host name or header) or, for a key that names its region (`{api_key, region}`
 * of openai and fireworks), the key's.
 */
import type { CatalogEndpoint } from './catalog-types.ts';
import type { DataRegion } from '#src/data-region.ts';

/** The resolved target of one attempt. */
export interface EndpointLocation {
  baseUrl: string;
  upstreamModel: string;
}

/**
 * The base URL and model id serving `region` on this endpoint, or null when it cannot: the region is not among
 * the endpoint's `regions`, or the provider has no base URL (an Azure provider without `base_url`).
 * For `global`, an endpoint without a global host (a US-only Bedrock profile) is served from its first region.
 * A `us`/`europe` region uses the provider's regional host, or its base URL when the provider is itself regional
 * (a self-hosted server declared with `regions: [europe]`).
 */
export function locateEndpoint(endpoint: CatalogEndpoint, region: DataRegion): EndpointLocation | null {
  const provider = endpoint.provider;
  if (region === 'global') {
    if (!endpoint.regions.includes('global')) {
      const first = endpoint.regions[0];
      return first === undefined || first === 'global' ? null : locateEndpoint(endpoint, first);
    }
    return provider.baseUrl === null ? null : { baseUrl: provider.baseUrl, upstreamModel: endpoint.upstreamModel };
  }
  if (!endpoint.regions.includes(region)) return null;
  const baseUrl = provider.regionalBaseUrls[region] ?? provider.baseUrl;
  if (baseUrl === null || baseUrl === undefined) return null;
  return { baseUrl, upstreamModel: endpoint.regionalModels[region] ?? endpoint.upstreamModel };
}
