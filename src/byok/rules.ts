/**
 * The rules a BYOK credential must satisfy that a schema cannot say, as pure functions over the credential as
 * it would be after a change (stored values combined with the patch). Each violation is a precise reason,
 * sent as `400 Invalid request parameters: <reason>`.
 * @see ByokCredentialPatch in openapi/components/schemas/byok.yaml
 */
import { isResidencyRegion, type DataRegion, type ResidencyRegion } from '#src/data-region.ts';

/** Providers whose key may be region-bound (`{"api_key", "region"}` JSON text); their declared region comes from the key. */
export const REGIONAL_KEY_PROVIDERS: ReadonlySet<string> = new Set(['openai', 'fireworks']);

/** The only other providers that accept a declared `europe` or `us`. */
export const REGION_DECLARING_PROVIDERS: ReadonlySet<string> = new Set(['azure']);

/** A rule was broken; `reason` is safe to show (it never contains key material). */
export class RuleViolation extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.name = 'RuleViolation';
    this.reason = reason;
  }
}

/** The routing flags after a change. */
export interface CredentialFlags {
  isFallback: boolean;
  isByokOnly: boolean;
  isRequired: boolean;
}

/** Rejects `is_fallback` with `is_byok_only`, and `is_required` on a fallback credential. */
export function checkFlags(flags: CredentialFlags): void {
  if (flags.isFallback && flags.isByokOnly) throw new RuleViolation('is_fallback cannot be combined with is_byok_only');
  if (flags.isRequired && flags.isFallback) throw new RuleViolation('is_required is only valid on a non-fallback credential');
}

/** What decides the declared region after a change. */
export interface RegionInput {
  provider: string;
  /** The region named by the key in effect after the change (the new key when rotating); null for a plain key. */
  keyRegion: ResidencyRegion | null;
  /** True when the change replaces the key (and on create). */
  keyChanged: boolean;
  /** The stored declaration (null on create). */
  stored: DataRegion | null;
  /** The requested declaration: undefined when omitted. */
  requested: DataRegion | null | undefined;
}

/**
 * The declared region after a change. For openai and fireworks it follows the key: re-derived whenever the key
 * changes, and a declared value must match the key's region (a plain key has none: only null or `global`).
 * Among other providers only azure accepts `europe` or `us`. Omitted keeps the stored value.
 */
export function resolveDeclaredRegion(input: RegionInput): DataRegion | null {
  const { provider, keyRegion, requested } = input;
  if (REGIONAL_KEY_PROVIDERS.has(provider)) {
    if (requested === undefined) return input.keyChanged ? keyRegion : input.stored;
    if (keyRegion !== null) {
      if (requested !== keyRegion) {
        throw new RuleViolation(`declared_region ${String(requested)} does not match the region of the ${provider} key (${keyRegion})`);
      }
      return requested;
    }
    if (isResidencyRegion(requested)) {
      throw new RuleViolation(
        `declared_region ${requested} for ${provider} comes from the key: send the key as the JSON text {"api_key": "…", "region": "${requested}"}`,
      );
    }
    return requested;
  }
  if (requested === undefined) return input.stored;
  if (isResidencyRegion(requested) && !REGION_DECLARING_PROVIDERS.has(provider)) {
    throw new RuleViolation(
      `declared_region ${requested} is not accepted for ${provider}: among providers with plain keys only ${[...REGION_DECLARING_PROVIDERS].join(', ')} accepts europe or us`,
    );
  }
  return requested;
}

/**
 * Checks that every entry of `allowed_api_key_hashes` is a live key of the caller's account; the message names
 * the first that is not (unknown, revoked and another account's keys are indistinguishable on purpose).
 */
export function checkKeyHashes(requested: readonly string[] | null | undefined, liveHashes: ReadonlySet<string>): void {
  if (!requested) return;
  const index = requested.findIndex((hash) => !liveHashes.has(hash));
  if (index >= 0) throw new RuleViolation(`allowed_api_key_hashes[${index}] is not a live API key of this account`);
}
