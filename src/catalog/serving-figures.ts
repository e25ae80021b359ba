/**
 * A model's figures as its endpoints give them at a moment: the largest context window and output limit, the
 * cheapest price, and what some endpoint can do. Only endpoints still serving the model count: once a provider
 * retires its endpoint (`retires_at`, src/catalog/lifecycle.ts), the gateway never routes to it, so its window,
 * limit, price and capabilities describe nothing a request can get. `GET /models` (its window, limit and
 * `features`) and the auto-router read the same figures from here.
 * @see Model in openapi/components/schemas/models.yaml (`context_length`, `max_tokens`, `features`)
 */
import type { Capabilities, CatalogEndpoint, CatalogModel } from './catalog-types.ts';
import { isRetired } from './lifecycle.ts';

type FigureEndpoint = Pick<CatalogEndpoint, 'contextLength' | 'maxOutputTokens' | 'pricing' | 'retiresAt'>;

/** The endpoints not retired at `now` (epoch milliseconds), in catalog order. */
export function servingEndpoints<E extends Pick<CatalogEndpoint, 'retiresAt'>>(endpoints: readonly E[], now: number): E[] {
  return endpoints.filter((endpoint) => !isRetired(endpoint.retiresAt === null ? null : Date.parse(endpoint.retiresAt), now));
}

/**
 * The largest of some token counts; null when one is unknown (it may be the largest: nothing is held against
 * an unknown window) or when there are none.
 */
function largest(counts: readonly (number | null)[]): number | null {
  if (counts.length === 0 || counts.includes(null)) return null;
  return Math.max(...(counts as number[]));
}

/**
 * The context window and `max_tokens` ceiling of a model at `now`: the largest among the endpoints still
 * serving it. A model every endpoint of which has retired keeps the figures they had, so its listing still
 * says what it was. The output limit ignores endpoints that give none, and is null when none gives one.
 */
export function modelLimitsAt(model: Pick<CatalogModel, 'endpoints'>, now: number): { contextLength: number | null; maxOutputTokens: number | null } {
  const serving = servingEndpoints(model.endpoints, now);
  const deciding: readonly FigureEndpoint[] = serving.length > 0 ? serving : model.endpoints;
  const outputs = deciding.flatMap((endpoint) => (endpoint.maxOutputTokens === null ? [] : [endpoint.maxOutputTokens]));
  return { contextLength: largest(deciding.map((endpoint) => endpoint.contextLength)), maxOutputTokens: outputs.length === 0 ? null : Math.max(...outputs) };
}

/**
 * The input and output prices (USD per million tokens) of the model's cheapest endpoint still serving it at
 * `now`, input and output summed; null when none is.
 */
export function cheapestPricingAt(model: Pick<CatalogModel, 'endpoints'>, now: number): { input: number; output: number } | null {
  let best: { input: number; output: number } | null = null;
  for (const { pricing } of servingEndpoints(model.endpoints, now)) {
    if (best === null || pricing.input + pricing.output < best.input + best.output) best = { input: pricing.input, output: pricing.output };
  }
  return best;
}

// Each capability some of the endpoints has.
function unitedCapabilities(endpoints: readonly Pick<CatalogEndpoint, 'capabilities'>[]): Capabilities {
  const found: Capabilities = { tools: false, vision: false, pdf: false, thinking: false, caching: false, structured_output: false };
  for (const { capabilities } of endpoints) {
    for (const key of Object.keys(found) as (keyof Capabilities)[]) if (capabilities[key]) found[key] = true;
  }
  return found;
}

/**
 * What the model can do at `now`: each capability some endpoint still serving it has (an endpoint narrows the
 * model's own, `capabilities` in built-in data and configuration), so a request needing it can be served there;
 * null when none is serving.
 */
export function servingCapabilitiesAt(model: Pick<CatalogModel, 'endpoints'>, now: number): Capabilities | null {
  const serving = servingEndpoints(model.endpoints, now);
  return serving.length === 0 ? null : unitedCapabilities(serving);
}

/**
 * The model's `features` in `GET /models` at `now`: those of the endpoints still serving it, as the
 * auto-router reads them (`servingCapabilitiesAt`). A model every endpoint of which has retired keeps what they
 * had, as its window and limit do (`modelLimitsAt`); one without endpoints, its own.
 */
export function modelFeaturesAt(model: Pick<CatalogModel, 'endpoints' | 'capabilities'>, now: number): Capabilities {
  if (model.endpoints.length === 0) return { ...model.capabilities };
  return servingCapabilitiesAt(model, now) ?? unitedCapabilities(model.endpoints);
}
