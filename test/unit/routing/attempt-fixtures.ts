/**
 * Builders for attempts as the planner hands them to the runner: a provider record with sensible defaults
 * (an Anthropic-format upstream on 127.0.0.1, no quirks, no shared key) and an attempt on it.
 */
import type { CatalogProvider } from '#src/catalog/catalog-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';

/** A configured provider; `displayName` is the slug in upper case unless given. */
export function provider(slug: string, overrides: Partial<CatalogProvider> = {}): CatalogProvider {
  return {
    slug,
    displayName: slug.toUpperCase(),
    family: 'anthropic',
    baseUrl: 'http://127.0.0.1:9',
    regionalBaseUrls: {},
    regionalKeys: false,
    auth: 'x-api-key',
    dataPolicy: { zdr: false, data_collection: 'deny' },
    promptCaching: 'explicit',
    quirks: {},
    headers: {},
    sharedKey: null,
    aws: null,
    azureApiVersion: null,
    ...overrides,
  };
}

/** An attempt of `model` on a provider (by slug, or a record from {@link provider}), on the shared key unless given; its standard prices are its prices unless given. */
export function attempt(model: string, on: string | CatalogProvider, overrides: Partial<Attempt> = {}): Attempt {
  const record = typeof on === 'string' ? provider(on) : on;
  const pricing = overrides.pricing ?? { input: 1, output: 2, cache_read: null, cache_write: null };
  return {
    model,
    provider: record,
    upstreamModel: model.split('/')[1] ?? model,
    baseUrl: record.baseUrl ?? 'http://127.0.0.1:9',
    pricing,
    standardPricing: overrides.standardPricing ?? pricing,
    modelPricing: new Map(),
    fast: false,
    credential: { kind: 'shared' },
    availableIndex: 0,
    contextLength: null,
    pdfInput: true,
    imageInput: true,
    maxOutputTokens: null,
    ...overrides,
  };
}
