/**
 * Orders the endpoints that survived the filters: `provider.order` first, then `provider.sort` by price,
 * throughput or latency, or by default a random spread weighted towards the cheapest endpoints.
 */
import type { AttemptCredential, EndpointStats, PlanEndpoint, PlanPricing } from '#src/routing/plan-types.ts';
import type { SortKey } from '#src/routing/provider-preferences.ts';
import { orderIndex } from '#src/routing/provider-preferences.ts';

/** One endpoint of one model with the keys that may serve it, in key order. */
export interface EndpointGroup<E extends PlanEndpoint = PlanEndpoint> {
  model: string;
  /** Position of the model in the request (primary 0, then fallbacks). */
  modelIndex: number;
  /** Position of the endpoint in the model's catalog list, for stable ties. */
  catalogIndex: number;
  endpoint: E;
  fast: boolean;
  credentials: AttemptCredential[];
}

/** The price the endpoint charges for this request's speed. */
export function groupPricing(group: EndpointGroup): PlanPricing {
  return group.fast && group.endpoint.fast ? group.endpoint.fast.pricing : group.endpoint.pricing;
}

/** The price used to compare endpoints: input plus output per million tokens (a 1:1 blend). */
export function comparablePrice(group: EndpointGroup): number {
  const pricing = groupPricing(group);
  return pricing.input + pricing.output;
}

function statsOf(group: EndpointGroup, stats: ReadonlyMap<string, EndpointStats> | undefined): EndpointStats {
  return stats?.get(`${group.model}|${group.endpoint.provider}`) ?? {};
}

function tieBreak(left: EndpointGroup, right: EndpointGroup): number {
  return left.modelIndex - right.modelIndex || left.catalogIndex - right.catalogIndex;
}

// Unknown measurements sort last, whatever the direction.
function compareMeasured(left: number | undefined, right: number | undefined, ascending: boolean): number {
  if (left === undefined || right === undefined) return left === undefined ? (right === undefined ? 0 : 1) : -1;
  return ascending ? left - right : right - left;
}

/**
 * Sorts groups by `provider.sort`: price ascending, throughput descending, latency ascending. Endpoints without
 * a measurement sort after every measured one; ties keep model order, then catalog order.
 */
export function sortGroups<E extends PlanEndpoint>(
  groups: readonly EndpointGroup<E>[],
  by: SortKey,
  stats: ReadonlyMap<string, EndpointStats> | undefined,
): EndpointGroup<E>[] {
  const compare = (left: EndpointGroup, right: EndpointGroup): number => {
    switch (by) {
      case 'price':
        return comparablePrice(left) - comparablePrice(right);
      case 'throughput':
        return compareMeasured(statsOf(left, stats).throughputTokensPerSecond, statsOf(right, stats).throughputTokensPerSecond, false);
      case 'latency':
        return compareMeasured(statsOf(left, stats).latencyMs, statsOf(right, stats).latencyMs, true);
      default: {
        const unreachable: never = by;
        throw new Error(`unknown sort key ${String(unreachable)}`);
      }
    }
  };
  return [...groups].sort((left, right) => compare(left, right) || tieBreak(left, right));
}

// Prices below one cent per million (free or local endpoints) all count as one cent, so weights stay finite.
const PRICE_FLOOR = 0.01;

/** The weight of an endpoint in the default spread: the inverse square of its comparable price. */
export function spreadWeight(group: EndpointGroup): number {
  const price = Math.max(comparablePrice(group), PRICE_FLOOR);
  return 1 / (price * price);
}

/**
 * A random order in which cheaper endpoints tend to come first: the first endpoint is drawn with probability
 * proportional to {@link spreadWeight} (inverse square of price, so an endpoint at half the price is chosen four
 * times as often), the next from the rest likewise, and so on. Draws one number from `random` per endpoint
 * except the last, so a fixed sequence gives a fixed order.
 */
export function priceWeightedOrder<E extends PlanEndpoint>(groups: readonly EndpointGroup<E>[], random: () => number): EndpointGroup<E>[] {
  // Nothing to draw (the usual case: one endpoint with a key per model and kind of key).
  if (groups.length <= 1) return groups.slice();
  const remaining = [...groups].sort(tieBreak);
  const ordered: EndpointGroup<E>[] = [];
  while (remaining.length > 1) {
    const weights = remaining.map(spreadWeight);
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    let target = random() * total;
    let chosen = remaining.length - 1;
    for (let index = 0; index < weights.length; index += 1) {
      target -= weights[index] as number;
      if (target < 0) {
        chosen = index;
        break;
      }
    }
    ordered.push(...remaining.splice(chosen, 1));
  }
  ordered.push(...remaining);
  return ordered;
}

/** Splits groups into those whose provider `provider.order` names (in that order) and the rest (unchanged order). */
export function splitByOrder<E extends PlanEndpoint>(
  groups: readonly EndpointGroup<E>[],
  order: readonly string[],
): { named: EndpointGroup<E>[]; rest: EndpointGroup<E>[] } {
  if (order.length === 0) return { named: [], rest: [...groups] };
  const named = groups
    .filter((group) => orderIndex(order, group.endpoint) >= 0)
    .sort((left, right) => orderIndex(order, left.endpoint) - orderIndex(order, right.endpoint) || tieBreak(left, right));
  const rest = groups.filter((group) => orderIndex(order, group.endpoint) < 0);
  return { named, rest };
}

/** True when the group's first key is one of the caller's own (non-fallback) BYOK credentials. */
export function leadsWithByok(group: EndpointGroup): boolean {
  return group.credentials[0]?.kind === 'byok';
}
