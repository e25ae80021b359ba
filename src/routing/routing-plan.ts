/**
 * The routing plan: a pure function from (request, catalog, the caller's credentials, region) to the ordered
 * list of attempts the gateway makes. Nothing here performs I/O; randomness is injected.
 */
import { BadRequestError, NoEndpointError, NotFoundError } from '#src/errors.ts';
import type { MessageRequest } from '#src/api-types.ts';
import type { AvailableEndpoint, PlanEndpoint, PlanInput, PlanModel, PlannedAttempt, RoutingPlan } from '#src/routing/plan-types.ts';
import { modelStart, pinnedAttemptIndex } from '#src/routing/sticky/pin-choice.ts';
import { filterModel, type FilterContext } from '#src/routing/endpoint-filters.ts';
import { leadsWithByok, priceWeightedOrder, sortGroups, splitByOrder, type EndpointGroup } from '#src/routing/endpoint-sort.ts';
import { normalizePreferences, orderIndex, type NormalizedPreferences } from '#src/routing/provider-preferences.ts';
import { usedParameters } from '#src/routing/request-parameters.ts';

/** The most `fallbacks` a request may name. */
export const MAX_FALLBACKS = 3;

/**
 * The models a request may be served by, in order: the primary model, then `fallbacks` or `models`.
 * Duplicates keep their first position.
 */
export function requestedModels(request: MessageRequest, primaryModel: string = request.model): string[] {
  // `fallbacks: null` (the Anthropic SDKs type the field nullable) is none, as Anthropic reads it.
  const fallbacks = request.fallbacks ?? undefined;
  if (fallbacks !== undefined && request.models !== undefined) {
    throw new BadRequestError('`fallbacks` cannot be combined with `models`');
  }
  if (fallbacks !== undefined && fallbacks.length > MAX_FALLBACKS) {
    throw new BadRequestError(`at most ${MAX_FALLBACKS} \`fallbacks\``);
  }
  const rest = fallbacks?.map((fallback) => fallback.model) ?? request.models;
  if (rest === undefined || rest.length === 0) return [primaryModel];
  return [...new Set([primaryModel, ...rest])];
}

function resolveModels<E extends PlanEndpoint>(slugs: readonly string[], lookup: PlanInput<E>['models']): PlanModel<E>[] {
  const resolved: PlanModel<E>[] = [];
  for (const slug of slugs) {
    const model = lookup(slug);
    if (model === undefined) throw new NotFoundError(`Model not found: ${slug}`);
    if (!resolved.some((other) => other.slug === model.slug)) resolved.push(model);
  }
  return resolved;
}

// Default strategy: the caller's own keys are what they brought to be used, so endpoints that lead with one
// come first; each half is then spread by price.
function defaultOrder<E extends PlanEndpoint>(groups: readonly EndpointGroup<E>[], random: () => number): EndpointGroup<E>[] {
  const byok: EndpointGroup<E>[] = [];
  const others: EndpointGroup<E>[] = [];
  for (const group of groups) (leadsWithByok(group) ? byok : others).push(group);
  const ordered = priceWeightedOrder(byok, random);
  for (const group of priceWeightedOrder(others, random)) ordered.push(group);
  return ordered;
}

function orderGroups<E extends PlanEndpoint>(perModel: readonly EndpointGroup<E>[][], preferences: NormalizedPreferences, input: PlanInput<E>): EndpointGroup<E>[] {
  const arrange = (groups: readonly EndpointGroup<E>[]): EndpointGroup<E>[] => {
    // Without `provider.order` nothing is named: the rest is every group (what splitByOrder would copy).
    if (preferences.order.length === 0) return preferences.sortBy !== null ? sortGroups(groups, preferences.sortBy, input.stats) : defaultOrder(groups, input.random);
    const { named, rest } = splitByOrder(groups, preferences.order);
    const tail = preferences.sortBy !== null ? sortGroups(rest, preferences.sortBy, input.stats) : defaultOrder(rest, input.random);
    return [...named, ...tail];
  };
  if (preferences.sortBy !== null && preferences.partition === 'none') return arrange(perModel.flat());
  // A loop, not `flatMap`: V8's flatMap flattens through its generic runtime path, about a fifth of planning
  // on a one-model request (V8 profile, bench/JOURNAL.md 2026-11-28 11:xx); one model's order is the answer.
  if (perModel.length === 1) return arrange(perModel[0] as readonly EndpointGroup<E>[]);
  const ordered: EndpointGroup<E>[] = [];
  for (const groups of perModel) for (const group of arrange(groups)) ordered.push(group);
  return ordered;
}

// `allow_fallbacks: false` stops after the preferred providers: those in `order`; with `only` the filter already
// did it; with neither, the first provider chosen for each model (see keepFirstEndpoints, after the pin).
function cutFallbacks<E extends PlanEndpoint>(groups: EndpointGroup<E>[], preferences: NormalizedPreferences): EndpointGroup<E>[] {
  if (preferences.allowFallbacks || preferences.order.length === 0) return groups;
  return groups.filter((group) => orderIndex(preferences.order, group.endpoint) >= 0);
}

function keepsFirstEndpointOnly(preferences: NormalizedPreferences): boolean {
  return !preferences.allowFallbacks && preferences.order.length === 0 && preferences.only === null;
}

// `allow_fallbacks: false` with neither `order` nor `only`: each model keeps the endpoint of its first attempt,
// with all its keys. Cut after the sticky pin has moved its attempt first, so the session's provider is the
// one chosen (cut before, the spread's pick would replace the pin on most requests).
function keepFirstEndpoints<E extends PlanEndpoint>(attempts: PlannedAttempt<E>[]): PlannedAttempt<E>[] {
  const chosen = new Map<string, E>();
  return attempts.filter((attempt) => {
    const endpoint = chosen.get(attempt.model);
    if (endpoint === undefined) chosen.set(attempt.model, attempt.endpoint);
    return endpoint === undefined || endpoint === attempt.endpoint;
  });
}

function strategyOf(preferences: NormalizedPreferences): string {
  const sort = preferences.sortBy === null ? null : `sort:${preferences.sortBy}`;
  if (preferences.order.length > 0) return sort === null ? 'order' : `order+${sort}`;
  return sort ?? 'price-weighted';
}

// The (model, provider) pairs in plan order; each attempt learns the position of its pair.
function indexAvailable(attempts: readonly PlannedAttempt[]): AvailableEndpoint[] {
  const available: AvailableEndpoint[] = [];
  for (const attempt of attempts) {
    const index = available.findIndex((entry) => entry.model === attempt.model && entry.providerSlug === attempt.endpoint.provider);
    attempt.availableIndex =
      index >= 0 ? index : available.push({ model: attempt.model, provider: attempt.endpoint.providerName, providerSlug: attempt.endpoint.provider }) - 1;
  }
  return available;
}

/** What the plan's filters read of its input: the request's preferences and parameters, the caller and its keys. */
export type FilterInput = Pick<PlanInput, 'request' | 'callerKeyHash' | 'region' | 'credentials' | 'sharedProviders' | 'now'>;

/** The filter context of a plan: made once per plan, or once per auto-routed request for its candidates. */
export function filterContextOf(input: FilterInput): FilterContext {
  const { request } = input;
  const preferences = normalizePreferences(request);
  return {
    preferences,
    usedParameters: usedParameters(request),
    fast: request.speed === 'fast',
    data: { zdr: preferences.zdr, denyDataCollection: preferences.denyDataCollection, region: input.region },
    credentials: input.credentials,
    caller: { keyHash: input.callerKeyHash, user: request.user },
    sharedProviders: input.sharedProviders,
    now: input.now ?? Date.now(),
  };
}

/**
 * Whether a plan for the request could use the model: some endpoint passes every filter with a key, and
 * under `allow_fallbacks: false` with `provider.order` one of those is named in the order. The auto-router
 * chooses only among such models, so the model it picks is one the plan can serve.
 */
export function modelServable(model: PlanModel, context: FilterContext): boolean {
  const { groups } = filterModel(model, 0, context);
  const { preferences } = context;
  if (preferences.allowFallbacks || preferences.order.length === 0) return groups.length > 0;
  return groups.some((group) => orderIndex(preferences.order, group.endpoint) >= 0);
}

/**
 * Plans the attempts for a request. Throws `BadRequestError` when `fallbacks` and `models` are combined,
 * `NotFoundError('Model not found: <slug>')` for an unknown model, and `NoEndpointError` (404) naming the
 * preference or BYOK rule that removed the last endpoint when nothing can serve the request.
 *
 * `speed: fast` is honoured per model: when some endpoint of a model offers a fast variant, only those run
 * (fast, at the fast price, which `max_price` and price sorting then use); when none does, the model runs at
 * standard speed with a warning rather than failing the request.
 */
export function planAttempts<E extends PlanEndpoint>(input: PlanInput<E>): RoutingPlan<E> {
  const { request } = input;
  const models = resolveModels(requestedModels(request, input.primaryModel), input.models);
  const context = filterContextOf(input);
  const { preferences } = context;

  const warnings: string[] = [];
  const reasons = new Map<string, string>();
  const perModel = models.map((model, modelIndex) => {
    const filtered = filterModel(model, modelIndex, context);
    if (filtered.warnings.length > 0) warnings.push(...filtered.warnings);
    if (filtered.emptiedBy !== null) reasons.set(model.slug, filtered.emptiedBy);
    return filtered.groups;
  });

  const ordered = orderGroups(perModel, preferences, input);
  const kept = cutFallbacks(ordered, preferences);
  for (const model of models) {
    if (reasons.has(model.slug) || kept.some((group) => group.model === model.slug)) continue;
    reasons.set(model.slug, preferences.order.length > 0
      ? `provider.allow_fallbacks=false and no provider in provider.order serves ${model.slug}`
      : `provider.allow_fallbacks=false leaves no endpoint of ${model.slug}`);
  }
  if (kept.length === 0) {
    throw new NoEndpointError([...reasons.values()]);
  }
  if (reasons.size > 0) for (const reason of reasons.values()) warnings.push(`skipped: ${reason}`);

  let attempts: PlannedAttempt<E>[] = [];
  for (const group of kept) {
    for (const credential of group.credentials) attempts.push({ model: group.model, endpoint: group.endpoint, credential, fast: group.fast, availableIndex: -1 });
  }
  let strategy = strategyOf(preferences);
  // An explicit `provider.order` is the caller's own ranking and wins over a sticky pin (a pin is only a guess
  // at where the prompt cache is warm, often derived from the content alone).
  const pin = preferences.order.length > 0 ? null : input.stickyPin;
  const pinned = pin ? pinnedAttemptIndex(attempts, pin, input.stickyKind ?? 'session') : -1;
  if (pinned >= 0) {
    // The pin chooses the provider of its model, never the model: a session a fallback model served once
    // (the primary failed or refused) asks the primary first again, as `fallbacks` promises.
    attempts.splice(modelStart(attempts, pinned), 0, ...attempts.splice(pinned, 1));
    strategy = 'sticky';
  }
  if (keepsFirstEndpointOnly(preferences)) attempts = keepFirstEndpoints(attempts);
  return { attempts, strategy, available: indexAvailable(attempts), warnings };
}

