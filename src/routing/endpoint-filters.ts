/**
 * The hard filters of a routing plan, applied to one model's endpoints in a fixed sequence. Each stage that
 * removes the last remaining endpoint records why, so that a request nobody can serve gets an answer naming
 * the preference (or BYOK rule) responsible.
 */
import type { PlanCredential, PlanEndpoint, PlanModel, RequestParameter } from '#src/routing/plan-types.ts';
import {
  keysForEndpoint,
  satisfiesNoDataCollection,
  satisfiesZdr,
  servesRegion,
  type CallerIdentity,
  type DataRequirements,
  type SharedRemoval,
} from '#src/routing/byok-selection.ts';
import { groupPricing, type EndpointGroup } from '#src/routing/endpoint-sort.ts';
import { isRetired } from '#src/catalog/lifecycle.ts';
import { describeMaxPrice, namesProvider, withinMaxPrice, type NormalizedPreferences } from '#src/routing/provider-preferences.ts';

/** What the filters need besides the model. */
export interface FilterContext {
  preferences: NormalizedPreferences;
  usedParameters: readonly RequestParameter[];
  fast: boolean;
  data: DataRequirements;
  credentials: readonly PlanCredential[];
  caller: CallerIdentity;
  sharedProviders: ReadonlySet<string>;
  /** The time of the request (epoch milliseconds): endpoints retired by then are not planned. */
  now: number;
}

/** The endpoints of one model that survived, or why none did. */
export interface FilteredModel<E extends PlanEndpoint = PlanEndpoint> {
  groups: EndpointGroup<E>[];
  /** Set when no endpoint survived: the reason, naming the model. */
  emptiedBy: string | null;
  warnings: string[];
}

function describeSharedRemoval(removal: SharedRemoval, provider: string, model: string): string {
  switch (removal) {
    case 'is_required':
      return `is_required removes shared endpoints of ${provider} and no key applies`;
    case 'is_byok_only':
      return `is_byok_only removes shared endpoints of ${provider} for ${model} and no key applies`;
    case 'no_shared_key':
      return `the gateway has no key for ${provider} and no BYOK key applies`;
    case null:
      return `no key for ${provider}`;
    default: {
      const unreachable: never = removal;
      throw new Error(`unknown removal ${String(unreachable)}`);
    }
  }
}

// "anthropic/claude-sonnet-4 was retired on anthropic on 2026-06-15": the providers that no longer serve the model.
function describeRetirement(slug: string, retired: readonly PlanEndpoint[]): string {
  const dates = retired.map((endpoint) => `${endpoint.provider} on ${new Date(endpoint.retiresAt ?? 0).toISOString().slice(0, 10)}`);
  return `${slug} was retired on ${dates.join(' and on ')}`;
}

// What a provider preference that removed the last endpoint adds when retirements had removed others first:
// the client asked for a provider that no longer serves the model, and learns which ones still do.
function retiredNote<E extends PlanEndpoint>(slug: string, retired: readonly PlanEndpoint[], serving: readonly EndpointGroup<E>[]): string {
  if (retired.length === 0) return '';
  const providers = [...new Set(serving.map((group) => group.endpoint.provider))];
  return ` still serving it (${describeRetirement(slug, retired)}; still served by ${providers.join(', ')})`;
}

/**
 * Filters one model's endpoints by every hard rule of the request, in a fixed order. The first removes the
 * endpoints whose provider has retired the model (`retiresAt`): no request is sent to a model id its
 * provider no longer serves, whatever the preferences say.
 */
export function filterModel<E extends PlanEndpoint>(model: PlanModel<E>, modelIndex: number, context: FilterContext): FilteredModel<E> {
  const { preferences } = context;
  const slug = model.slug;
  const warnings: string[] = [];
  let groups: EndpointGroup<E>[] = model.endpoints.map((endpoint, catalogIndex) => ({
    model: slug,
    modelIndex,
    catalogIndex,
    endpoint,
    fast: false,
    credentials: [],
  }));
  if (groups.length === 0) return { groups, emptiedBy: `${slug} has no endpoint`, warnings };

  let emptiedBy: string | null = null;
  const stage = (keep: (group: EndpointGroup<E>) => boolean, reason: () => string): void => {
    if (groups.length === 0) return;
    groups = groups.filter(keep);
    if (groups.length === 0) emptiedBy = reason();
  };

  const retired = model.endpoints.filter((endpoint) => isRetired(endpoint.retiresAt ?? null, context.now));
  if (retired.length > 0) stage((group) => !retired.includes(group.endpoint), () => describeRetirement(slug, retired));
  const serving = groups;

  const only = preferences.only;
  if (only !== null) {
    stage((group) => namesProvider(only, group.endpoint), () => `provider.only excludes every endpoint of ${slug}${retiredNote(slug, retired, serving)}`);
  }
  if (preferences.ignore.length > 0) {
    stage((group) => !namesProvider(preferences.ignore, group.endpoint), () => `provider.ignore excludes every endpoint of ${slug}${retiredNote(slug, retired, serving)}`);
  }
  if (preferences.requireParameters && context.usedParameters.length > 0) {
    const wanted = context.usedParameters;
    stage(
      (group) => wanted.every((parameter) => group.endpoint.supportedParameters.includes(parameter)),
      () => `no endpoint of ${slug} supports every parameter the request uses (${wanted.join(', ')})`,
    );
  }
  if (context.fast && groups.length > 0) {
    const fastGroups = groups.filter((group) => group.endpoint.fast);
    if (fastGroups.length > 0) groups = fastGroups.map((group) => ({ ...group, fast: true }));
    else warnings.push(`no endpoint of ${slug} offers speed=fast; using standard speed`);
  }
  const maxPrice = preferences.maxPrice;
  if (maxPrice !== null) {
    stage((group) => withinMaxPrice(groupPricing(group), maxPrice), () => `no endpoint of ${slug} is within provider.max_price (${describeMaxPrice(maxPrice)})`);
  }

  // The groups are this call's own (made above), so each takes its keys in place. Why an endpoint has no key
  // is worded only when that empties the model (then no group has a key, and each one's reason is read again):
  // an endpoint on a provider nobody holds a key for, common in the catalog, costs no text per request.
  const keyed = groups;
  for (const group of keyed) group.credentials = keysForEndpoint(group.endpoint, slug, context).credentials;
  stage(
    (group) => group.credentials.length > 0,
    () => `${slug}: ${keyed.map((group) => describeSharedRemoval(keysForEndpoint(group.endpoint, slug, context).sharedRemovedBy, group.endpoint.provider, slug)).join('; ')}`,
  );

  const credentialOf = (id: string): PlanCredential | null => context.credentials.find((credential) => credential.id === id) ?? null;
  const keyStage = (keep: (group: EndpointGroup<E>, credential: PlanCredential | null) => boolean, reason: () => string): void => {
    if (groups.length === 0) return;
    groups = groups
      .map((group) => ({
        ...group,
        credentials: group.credentials.filter((key) => keep(group, key.kind === 'shared' ? null : credentialOf(key.credentialId))),
      }))
      .filter((group) => group.credentials.length > 0);
    if (groups.length === 0) emptiedBy = reason();
  };
  const { data } = context;
  if (data.denyDataCollection) {
    keyStage((group, credential) => satisfiesNoDataCollection(group.endpoint, credential), () => `no endpoint of ${slug} allows data_collection=deny`);
  }
  if (data.zdr) {
    keyStage((group, credential) => satisfiesZdr(group.endpoint, credential), () => `no endpoint of ${slug} offers zero data retention (zdr=true)`);
  }
  if (data.region !== 'global') {
    keyStage((group, credential) => servesRegion(group.endpoint, credential, data.region), () => `no endpoint of ${slug} serves region ${data.region}`);
  }
  return { groups, emptiedBy, warnings };
}
