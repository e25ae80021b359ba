/**
 * Which keys may serve one endpoint for one request: the caller's BYOK credentials and the gateway's shared
 * key, in the order the interface prescribes, and which of them the request's data-policy and region rules
 * allow. Pure functions over {@link PlanCredential}.
 * @see the `is_fallback`, `is_byok_only`, `is_required`, `declared_region` and `declared_zdr` rules of the interface
 */
import type { AttemptCredential, PlanCredential, PlanEndpoint } from '#src/routing/plan-types.ts';
import type { DataRegion, ResidencyRegion } from '#src/data-region.ts';

/** Who is calling: matched against the credential's filters. */
export interface CallerIdentity {
  /** SHA-256 hex of the calling gateway key. */
  keyHash: string;
  /** The request's `user`, when given. */
  user: string | undefined;
}

/** True when an `allowed_models` entry names the model: an exact slug, or `<vendor>/*`. */
export function modelPatternMatches(pattern: string, model: string): boolean {
  if (pattern.endsWith('/*')) return model.startsWith(pattern.slice(0, -1));
  return pattern === model;
}

/** True when the credential's `allowed_models` covers the model (null: every model). */
export function coversModel(credential: PlanCredential, model: string): boolean {
  return credential.allowedModels === null || credential.allowedModels.some((pattern) => modelPatternMatches(pattern, model));
}

/**
 * True when the credential may serve this request: it is enabled and every filter that is set matches
 * (`allowed_models`, `allowed_api_key_hashes` against the calling key, `allowed_user_ids` against `user`).
 */
export function credentialApplies(credential: PlanCredential, model: string, caller: CallerIdentity): boolean {
  if (credential.disabled) return false;
  if (!coversModel(credential, model)) return false;
  if (credential.allowedApiKeyHashes !== null && !credential.allowedApiKeyHashes.includes(caller.keyHash)) return false;
  if (credential.allowedUserIds !== null && (caller.user === undefined || !credential.allowedUserIds.includes(caller.user))) return false;
  return true;
}

/** Why a provider's shared endpoint is absent for a model; null when it is present. */
export type SharedRemoval = 'is_required' | 'is_byok_only' | 'no_shared_key' | null;

/** The keys that may serve one endpoint, in order, and why the shared key is missing when it is. */
export interface EndpointKeys {
  credentials: AttemptCredential[];
  sharedRemovedBy: SharedRemoval;
}

function bySortOrder(left: PlanCredential, right: PlanCredential): number {
  return left.sortOrder - right.sortOrder || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

/** Whose keys may serve an endpoint: the caller's credentials, who is calling, and the providers with a shared key. */
export interface KeyScope {
  credentials: readonly PlanCredential[];
  caller: CallerIdentity;
  sharedProviders: ReadonlySet<string>;
}

/**
 * The keys for one endpoint: applicable non-fallback BYOK credentials in `sort_order`, then the shared key,
 * then applicable `is_fallback` credentials in `sort_order`.
 *
 * `is_required` and `is_byok_only` are account policies: they take effect whenever the credential is enabled,
 * even when its key-hash or user filters exclude this caller (the customer said not to spend gateway credit on
 * that provider; a caller outside the filters then has no key for it, and the provider is skipped). A disabled
 * credential has no effect at all. `is_required` removes the shared key for every model; `is_byok_only` only for
 * the models its `allowed_models` covers.
 */
export function keysForEndpoint(endpoint: PlanEndpoint, model: string, scope: KeyScope): EndpointKeys {
  // One pass over the caller's credentials, run for every endpoint of every request: no intermediate arrays.
  let required = false;
  let byokOnly = false;
  let applicable: PlanCredential[] | undefined;
  for (const credential of scope.credentials) {
    if (credential.provider !== endpoint.provider || credential.disabled) continue;
    if (credential.isRequired) required = true;
    if (credential.isByokOnly && coversModel(credential, model)) byokOnly = true;
    if (credentialApplies(credential, model, scope.caller)) (applicable ??= []).push(credential);
  }
  const sharedRemovedBy: SharedRemoval = required
    ? 'is_required'
    : byokOnly
      ? 'is_byok_only'
      : scope.sharedProviders.has(endpoint.provider)
        ? null
        : 'no_shared_key';

  const credentials: AttemptCredential[] = [];
  if (applicable !== undefined) {
    applicable.sort(bySortOrder);
    for (const credential of applicable) if (!credential.isFallback) credentials.push({ kind: 'byok', credentialId: credential.id });
  }
  if (sharedRemovedBy === null) credentials.push({ kind: 'shared' });
  if (applicable !== undefined) {
    for (const credential of applicable) if (credential.isFallback) credentials.push({ kind: 'byok', credentialId: credential.id });
  }
  return { credentials, sharedRemovedBy };
}

/** What the request demands of where its data goes. */
export interface DataRequirements {
  zdr: boolean;
  denyDataCollection: boolean;
  region: DataRegion;
}

function excludedFromDeclaredRegion(endpoint: PlanEndpoint, region: ResidencyRegion): boolean {
  const exclusions = endpoint.regionalExclusions;
  if (exclusions === undefined) return false;
  if (exclusions.privateEndpoint === true || exclusions.crossRegionProfile === true || exclusions.video === true) return true;
  return exclusions.pinnedRegion !== undefined && exclusions.pinnedRegion !== null && exclusions.pinnedRegion !== region;
}

/**
 * True when the key may serve the endpoint in the requested region. Shared keys follow the endpoint's
 * `regions`. A BYOK credential declaring the requested region may serve it (unless the endpoint is private,
 * pinned to another cloud region, a cross-region inference profile or a video model); one declaring null or
 * `global` follows the endpoint's `regions`; one declaring another region does not serve a regional request.
 * A `global` request may use any key.
 */
export function servesRegion(endpoint: PlanEndpoint, credential: PlanCredential | null, region: DataRegion): boolean {
  if (region === 'global') return true;
  const endpointServes = endpoint.regions.includes(region);
  if (credential === null || credential.declaredRegion === null || credential.declaredRegion === 'global') return endpointServes;
  if (credential.declaredRegion !== region) return false;
  return endpointServes || !excludedFromDeclaredRegion(endpoint, region);
}

/**
 * True when the key satisfies `zdr: true`: shared keys follow the endpoint's policy; `declared_zdr` true
 * qualifies even where the endpoint retains data, false never does, null inherits the endpoint's policy.
 */
export function satisfiesZdr(endpoint: PlanEndpoint, credential: PlanCredential | null): boolean {
  return credential?.declaredZdr ?? endpoint.dataPolicy.zdr;
}

/**
 * True when the key satisfies `data_collection: deny`: the endpoint does not collect, or the credential
 * declares zero data retention (which implies no collection); otherwise the endpoint's policy is inherited.
 */
export function satisfiesNoDataCollection(endpoint: PlanEndpoint, credential: PlanCredential | null): boolean {
  if (credential?.declaredZdr === true) return true;
  return endpoint.dataPolicy.dataCollection === 'deny';
}
