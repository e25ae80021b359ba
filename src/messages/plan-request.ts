/**
 * The request planner: gathers what the pure routing plan needs (the catalog view, the caller's
 * credentials from the in-process cache, the session's sticky pin, measured endpoint statistics, the
 * request's region), calls `planAttempts`, and prepares each attempt to run: where it goes, which key it
 * decrypts when it runs, and how its usage is priced.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { autoRouterSettings, chooseModel } from '#src/messages/auto-router.ts';
import { BadRequestError, GatewayError } from '#src/errors.ts';
import { locateEndpoint } from '#src/catalog/index.ts';
import { computeCost, usageFromAnthropic } from '#src/catalog/pricing.ts';
import type { CatalogEndpoint, CatalogProvider, DataRegion } from '#src/catalog/catalog-types.ts';
import type { ProviderKey } from '#src/providers/provider-adapter.ts';
import type { PlanCredential, PlannedAttempt, PlanRegion } from '#src/messages/plan-types.ts';
import { planAttempts } from '#src/messages/routing-plan.ts';
import { assertCacheBreakpointLimit, placeTopLevelCacheBreakpoint } from '#src/request/cache-breakpoints.ts';
import { stickyKey, type StickySessions } from '#src/messages/sticky-session.ts';
import type { CatalogPlanView } from '#src/messages/catalog-plan-view.ts';
import type { EndpointStatsTracker } from '#src/messages/endpoint-stats.ts';
import type { PlanRequestContext, PreparedAttempt, PreparedPlan, RequestPlanner } from '#src/messages/prepared-plan.ts';
import type { UsageForCost } from '#src/messages/gateway-additions.ts';

/** The caller's stored credentials, as routing reads them: cached in process, keys decrypted on demand. */
export interface CredentialSource {
  forAccount(accountId: string): Promise<readonly PlanCredential[]>;
  revealKey(accountId: string, credentialId: string): Promise<ProviderKey>;
}

/** What the planner needs. */
export interface RequestPlannerDeps {
  view: CatalogPlanView;
  credentials: CredentialSource;
  sessions: StickySessions;
  stats: EndpointStatsTracker;
  regionalHosts: ReadonlyMap<string, 'europe' | 'us'>;
  random?: () => number;
}

const REGIONS = new Set<PlanRegion>(['global', 'europe', 'us']);

/** The request's data region: the `X-Gateway-Region` header, else the regional host it arrived on. */
export function requestRegion(headers: PlanRequestContext['headers'], regionalHosts: ReadonlyMap<string, 'europe' | 'us'>): PlanRegion {
  const header = headers['x-gateway-region'];
  if (typeof header === 'string' && REGIONS.has(header as PlanRegion)) return header as PlanRegion;
  const host = typeof headers.host === 'string' ? headers.host.replace(/:\d+$/, '').toLowerCase() : '';
  return regionalHosts.get(host) ?? 'global';
}

/** No gateway server tool is installed yet; a request naming one gets a 400 that says so. */
function rejectGatewayTools(request: MessageRequest): void {
  const names = (request.tools ?? []).map((tool) => ('type' in tool ? tool.type : undefined)).filter((type) => type?.startsWith('gateway:'));
  if (names.length > 0) throw new BadRequestError(`gateway server tools are not available on this gateway: ${names.join(', ')}`);
}

/**
 * The auto-router's choice when the request asks for it (`switchboard/auto` or the plugin): candidates are
 * the models the caller can actually reach, through a shared key or one of its own.
 */
function autoRoute(view: CatalogPlanView, request: MessageRequest, credentials: readonly PlanCredential[], pinnedModel: string | undefined): string | undefined {
  const settings = autoRouterSettings(request);
  if (!settings) return undefined;
  const reachable = new Set(view.sharedProviders);
  for (const credential of credentials) if (!credential.disabled) reachable.add(credential.provider);
  return chooseModel({
    request,
    settings,
    candidates: view.autoCandidates,
    pinnedModel: settings.pin_model ? (pinnedModel ?? null) : null,
    isServable: (slug) => view.model(slug)?.endpoints.some((endpoint) => reachable.has(endpoint.provider)) ?? false,
  }).model;
}

function regionalBaseUrl(provider: CatalogProvider, key: ProviderKey | undefined, fallback: string): string {
  if (typeof key === 'object' && key !== null && provider.regionalKeys) return provider.regionalBaseUrls[key.region] ?? fallback;
  return fallback;
}

/**
 * A BYOK credential declaring the request's region may serve it even where the endpoint's recorded regions
 * lack it (the interface's `declared_region` rule): the call goes to the provider's host for that region.
 */
function declaredRegionLocation(endpoint: CatalogEndpoint, region: DataRegion, planned: PlannedAttempt): { baseUrl: string; upstreamModel: string } | null {
  if (planned.credential.kind !== 'byok' || region === 'global') return null;
  const baseUrl = endpoint.provider.regionalBaseUrls[region] ?? endpoint.provider.baseUrl;
  return baseUrl ? { baseUrl, upstreamModel: endpoint.regionalModels[region] ?? endpoint.upstreamModel } : null;
}

function pricer(endpoint: CatalogEndpoint, fast: boolean): (usage: UsageForCost) => number {
  const pricing = fast && endpoint.fast ? endpoint.fast.pricing : endpoint.pricing;
  return (usage) => computeCost(usageFromAnthropic(usage), pricing);
}

/** Creates the request planner. */
export function createRequestPlanner(deps: RequestPlannerDeps): RequestPlanner {
  const random = deps.random ?? Math.random;
  return async (original, context) => {
    rejectGatewayTools(original);
    // A request error every endpoint would answer alike is refused here, before any provider is called.
    assertCacheBreakpointLimit(original);
    const region = requestRegion(context.headers, deps.regionalHosts);
    const sticky = stickyKey(original, context.headers, context);
    const [credentials, pin] = await Promise.all([deps.credentials.forAccount(context.accountId), deps.sessions.lookup(sticky.key)]);
    const chosen = autoRoute(deps.view, original, credentials, pin?.model);
    const request = placeTopLevelCacheBreakpoint(original);
    const routing = planAttempts({
      request,
      ...(chosen ? { primaryModel: chosen } : {}),
      callerKeyHash: context.keyHash,
      region,
      models: deps.view.model,
      credentials,
      sharedProviders: deps.view.sharedProviders,
      stats: deps.stats.snapshot,
      stickyPin: pin,
      stickyKind: sticky.source === 'content' ? 'content' : 'session',
      random,
    });
    const available = routing.available.map(({ model, provider }) => ({ model, provider }));
    const plannedBy = new Map<PreparedAttempt, PlannedAttempt>();
    const attempts = routing.attempts.map((planned) => {
      const prepared = prepareAttempt(deps, planned, region, context.accountId, available);
      plannedBy.set(prepared, planned);
      return prepared;
    });
    return {
      request,
      requested: original.model,
      region,
      strategy: chosen ? `auto-router:${routing.strategy}` : routing.strategy,
      available,
      attempts,
      onSuccess(attempt, sample) {
        const planned = plannedBy.get(attempt);
        if (!planned) return;
        deps.stats.record(attempt.model, attempt.providerSlug, { latencyMs: sample.durationMs, durationMs: sample.durationMs, ...(sample.outputTokens ? { outputTokens: sample.outputTokens } : {}) });
        void deps.sessions.succeeded(sticky.key, planned);
      },
      onFailure(attempt) {
        const planned = plannedBy.get(attempt);
        if (planned) void deps.sessions.failed(sticky.key, pin, planned);
      },
    };
  };
}

function prepareAttempt(
  deps: RequestPlannerDeps,
  planned: PlannedAttempt,
  region: DataRegion,
  accountId: string,
  available: { model: string; provider: string }[],
): PreparedAttempt {
  const endpoint = deps.view.endpoint(planned.model, planned.endpoint.provider);
  const location = endpoint ? (locateEndpoint(endpoint, region) ?? declaredRegionLocation(endpoint, region, planned)) : null;
  if (!endpoint || !location) {
    throw new GatewayError(500, 'Internal Server Error', { cause: new Error(`planned endpoint ${planned.model}@${planned.endpoint.provider} has no location for ${region}`) });
  }
  const provider = endpoint.provider;
  const credential = planned.credential;
  return {
    model: planned.model,
    providerSlug: provider.slug,
    providerName: provider.displayName,
    isByok: credential.kind === 'byok',
    family: provider.family,
    upstreamModel: location.upstreamModel,
    ...(Object.keys(provider.headers).length > 0 ? { providerHeaders: { ...provider.headers } } : {}),
    availableIndex: available.findIndex((entry) => entry.model === planned.model && entry.provider === provider.displayName),
    credentialId: credential.kind === 'byok' ? credential.credentialId : null,
    fast: planned.fast,
    async resolveTarget() {
      const key = credential.kind === 'byok' ? await deps.credentials.revealKey(accountId, credential.credentialId) : provider.sharedKey?.reveal();
      return { key, baseUrl: regionalBaseUrl(provider, key, location.baseUrl) };
    },
    priceUsage: pricer(endpoint, planned.fast),
  };
}
