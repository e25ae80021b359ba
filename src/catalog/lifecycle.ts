/**
 * Where a model and each of its endpoints stand in their lifecycle, in the words of Anthropic's ModelInfo
 * (`active`, `deprecated`, `retired`). A provider retires a model id on its own schedule: Anthropic's model
 * deprecations page says its dates "apply to Anthropic-operated platforms" while "Amazon Bedrock and Google
 * Cloud set their own retirement schedules", so the dates belong to the endpoint, and the gateway's model
 * lives as long as some endpoint still serves it.
 * @see https://platform.claude.com/docs/en/about-claude/model-deprecations
 * @see Lifecycle in openapi/components/schemas/models.yaml
 */
import type { Lifecycle } from '#src/api-types.ts';
import type { CatalogEndpoint } from './catalog-types.ts';

/** A lifecycle stage and its dates, as `GET /models` gives them for a model or an endpoint. */
export interface LifecycleView {
  lifecycle: Lifecycle;
  deprecated_at: string | null;
  retires_at: string | null;
}

/** Whether a retirement time (epoch milliseconds, null for none scheduled) has come by `now`. */
export function isRetired(retiresAtMs: number | null, now: number): boolean {
  return retiresAtMs !== null && now >= retiresAtMs;
}

/** An endpoint's stage at `now`: retired from `retires_at` on, deprecated while a retirement is scheduled. */
export function endpointLifecycle(endpoint: Pick<CatalogEndpoint, 'deprecatedAt' | 'retiresAt'>, now: number): LifecycleView {
  const { deprecatedAt, retiresAt } = endpoint;
  if (retiresAt === null) return { lifecycle: 'active', deprecated_at: null, retires_at: null };
  return { lifecycle: isRetired(Date.parse(retiresAt), now) ? 'retired' : 'deprecated', deprecated_at: deprecatedAt, retires_at: retiresAt };
}

// The latest of some RFC 3339 times, or null when none is given.
function latest(times: readonly (string | null)[]): string | null {
  let found: string | null = null;
  for (const time of times) if (time !== null && (found === null || Date.parse(time) > Date.parse(found))) found = time;
  return found;
}

/**
 * A model's stage from its endpoints' stages: active while one endpoint is; else deprecated while one is
 * not yet retired, retiring when the last of those does; else retired.
 */
export function modelLifecycle(endpoints: readonly LifecycleView[]): LifecycleView {
  if (endpoints.length === 0 || endpoints.some((endpoint) => endpoint.lifecycle === 'active')) return { lifecycle: 'active', deprecated_at: null, retires_at: null };
  const serving = endpoints.filter((endpoint) => endpoint.lifecycle === 'deprecated');
  const deciding = serving.length > 0 ? serving : endpoints;
  return {
    lifecycle: serving.length > 0 ? 'deprecated' : 'retired',
    deprecated_at: latest(deciding.map((endpoint) => endpoint.deprecated_at)),
    retires_at: latest(deciding.map((endpoint) => endpoint.retires_at)),
  };
}

/** Every time (epoch milliseconds, ascending) at which some endpoint's stage changes: their retirements. */
export function lifecycleChanges(endpoints: readonly Pick<CatalogEndpoint, 'retiresAt'>[]): number[] {
  const times = new Set<number>();
  for (const { retiresAt } of endpoints) if (retiresAt !== null) times.add(Date.parse(retiresAt));
  return [...times].sort((a, b) => a - b);
}

/** How many of the changes have happened by `now`: lists built at two times with the same count are equal. */
export function lifecycleEpoch(changes: readonly number[], now: number): number {
  let count = 0;
  while (count < changes.length && now >= (changes[count] ?? Number.POSITIVE_INFINITY)) count += 1;
  return count;
}

/**
 * `build` memoised per stretch of time between two of the endpoints' retirements: what it derives from the
 * catalog's lifecycle at `now` is the same within one stretch, so each is built once and then shared by identity.
 */
export function perLifecycleEpoch<T>(endpoints: readonly Pick<CatalogEndpoint, 'retiresAt'>[], build: (now: number) => T): (now: number) => T {
  const changes = lifecycleChanges(endpoints);
  const built = new Map<number, T>();
  return (now) => {
    const epoch = lifecycleEpoch(changes, now);
    if (!built.has(epoch)) built.set(epoch, build(now));
    return built.get(epoch) as T;
  };
}
