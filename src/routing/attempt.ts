/**
 * An attempt as the planner hands it to the attempt runner: plain data carrying everything its call needs, so
 * nothing downstream calls back into the planner or looks the endpoint or provider up again. The key itself is
 * not in it: the credential reference is revealed only when the attempt runs (see messages/attempt-call.ts).
 */
import { EndpointLocationError } from '#src/errors.ts';
import type { AttemptStatus } from '#src/api-types.ts';
import type { CatalogProvider, Pricing } from '#src/catalog/catalog-types.ts';
import type { PricingByModel } from '#src/catalog/pricing.ts';
import type { DataRegion } from '#src/data-region.ts';
import type { CatalogPlanEndpoint } from '#src/routing/catalog-plan-view.ts';
import type { AttemptCredential, PlannedAttempt } from '#src/routing/plan-types.ts';
import { attemptContextLength } from '#src/routing/long-context.ts';
import { attemptOutputLimit } from '#src/routing/output-limit-betas.ts';

/** One (model, endpoint, key) to try, ready to call. */
export interface Attempt {
  /** The catalog model slug this attempt serves (what the response's `model` says). */
  model: string;
  /**
   * The provider as configured, shared by every attempt on it and never copied: slug, display name, API family,
   * quirks, static headers, the regional hosts a region-bound key selects, AWS signing settings, shared key.
   */
  provider: CatalogProvider;
  /** The vendor's model id in the request's region. */
  upstreamModel: string;
  /** The upstream's base URL in the request's region. */
  baseUrl: string;
  /** List prices of what runs: the fast variant's under `speed: fast`, a regional model id's in its region. */
  pricing: Readonly<Pricing>;
  /** The prices without the fast variant: what a fast attempt costs when its upstream served it at standard speed. */
  standardPricing: Readonly<Pricing>;
  /** The provider's standard prices by upstream model id, for usage reported for another model (shared, never copied). */
  modelPricing: PricingByModel;
  /** Run the endpoint's fast variant. */
  fast: boolean;
  /** Which key pays: the gateway's shared key, or one of the caller's BYOK credentials by id. */
  credential: AttemptCredential;
  /** Position of this attempt's (model, provider) pair in the plan's `available` list. */
  availableIndex: number;
  /** The endpoint's context length in tokens; null when unknown (a prompt is then never held to one). */
  contextLength: number | null;
  /** Whether the endpoint reads PDF documents natively (its `pdf` capability). */
  pdfInput: boolean;
  /** Whether the endpoint reads images (its `vision` capability). */
  imageInput: boolean;
  /**
   * The largest `max_tokens` the endpoint accepts; null when unknown, or when the client's `anthropic-beta` may
   * change it on an Anthropic-format endpoint (the client's is then sent as it is).
   */
  maxOutputTokens: number | null;
}

/** True when the caller's own key pays for the attempt. */
export function isByok(attempt: Pick<Attempt, 'credential'>): boolean {
  return attempt.credential.kind === 'byok';
}

/**
 * Turns a planned attempt into a callable one for the request's region: the endpoint's location for that
 * region, else (for a BYOK credential declaring the region) the provider's host for it. Throws
 * `EndpointLocationError` when neither exists, which the planner's region filter should have prevented.
 * `longContext`: the client opted into Anthropic's 1M-token window (src/routing/long-context.ts);
 * `otherOutputLimit`: its `anthropic-beta` may change the output limit (src/routing/output-limit-betas.ts).
 */
export function toAttempt(planned: PlannedAttempt<CatalogPlanEndpoint>, region: DataRegion, longContext = false, otherOutputLimit = false): Attempt {
  const { endpoint } = planned;
  const declared = planned.credential.kind === 'byok' && region !== 'global' ? endpoint.declaredLocations[region] : undefined;
  const location = endpoint.locations[region] ?? declared;
  if (!location) throw new EndpointLocationError(endpoint.catalog.id, region);
  const fastPricing = planned.fast ? endpoint.catalog.fast?.pricing : undefined;
  // A regional model id (Bedrock's `us.`/`eu.` profiles) may cost more than the endpoint's own.
  const regionalPricing = region !== 'global' && location.upstreamModel === endpoint.catalog.regionalModels[region] ? endpoint.catalog.regionalPricing[region] : undefined;
  const standardPricing = regionalPricing ?? endpoint.catalog.pricing;
  return {
    model: planned.model,
    provider: endpoint.catalog.provider,
    upstreamModel: location.upstreamModel,
    baseUrl: location.baseUrl,
    pricing: fastPricing ?? standardPricing,
    standardPricing,
    modelPricing: endpoint.modelPricing,
    fast: planned.fast,
    credential: planned.credential,
    availableIndex: planned.availableIndex,
    contextLength: attemptContextLength(endpoint.catalog, longContext),
    pdfInput: endpoint.catalog.capabilities.pdf,
    imageInput: endpoint.catalog.capabilities.vision,
    maxOutputTokens: attemptOutputLimit(endpoint.catalog, otherOutputLimit),
  };
}

/**
 * The prices of what the upstream served: the attempt's own, except that a fast attempt whose upstream reports
 * it ran at standard speed (Anthropic's `usage.speed: "standard"`, e.g. Claude Opus 4.6, which takes `speed:
 * fast` and runs it at standard speed and rates) costs the standard prices. An upstream that reports no speed
 * (translated vendors; Anthropic answers a fast request it cannot serve fast with an error, not a slower answer)
 * is taken to have served what was asked.
 * @see https://platform.claude.com/docs/en/build-with-claude/fast-mode (Checking which speed was used)
 */
export function servedPricing(attempt: Pick<Attempt, 'fast' | 'pricing' | 'standardPricing'>, speed: unknown): Readonly<Pricing> {
  return attempt.fast && speed === 'standard' ? attempt.standardPricing : attempt.pricing;
}

/** How one attempt ended, as routing reads it back (sticky pins, endpoint statistics). */
export interface AttemptOutcome {
  attempt: Attempt;
  /** Position of the attempt in its plan. */
  index: number;
  status: AttemptStatus;
  durationMs: number;
}
