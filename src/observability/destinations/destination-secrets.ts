/**
 * A destination's secrets at rest: one JSON object (OTLP headers, the Langfuse secret key, the webhook signing
 * secret, the query and user-info of its endpoint) sealed with the BYOK key vault's envelope encryption, bound to the destination's id.
 */
import type { KeyVault, SealedKey } from '#src/byok/key-vault.ts';
import { SecretValue } from '#src/catalog/secret-value.ts';
import type { DestinationSecrets } from '#src/observability/destinations/active-destination.ts';

/** The vault purpose that binds destination secrets (never opens as a provider key). */
export const DESTINATION_SECRET_PURPOSE = 'destination';

/** The plain secrets as sealed. */
export interface PlainDestinationSecrets {
  headers?: Record<string, string>;
  secret_key?: string;
  signing_secret?: string;
  /** The endpoint's query and fragment as given, when they carry values (endpoint-query.ts). */
  endpoint_tail?: string;
  /** The endpoint's user-info as written, sent as Basic authentication (endpoint-query.ts). */
  endpoint_user_info?: string;
}

/** Seals the secrets of destination `id`. */
export function sealDestinationSecrets(vault: KeyVault, id: string, secrets: PlainDestinationSecrets): Promise<SealedKey> {
  return vault.sealSecret(JSON.stringify(secrets), DESTINATION_SECRET_PURPOSE, id);
}

/** Opens the secrets of destination `id` as plain strings (for a change that keeps some of them). */
export function openPlainDestinationSecrets(vault: KeyVault, id: string, sealed: SealedKey): PlainDestinationSecrets {
  return JSON.parse(vault.openSecret(sealed, DESTINATION_SECRET_PURPOSE, id)) as PlainDestinationSecrets;
}

/** Wraps plain secrets so they never print. */
export function wrapSecrets(plain: PlainDestinationSecrets): DestinationSecrets {
  return {
    headers: Object.fromEntries(Object.entries(plain.headers ?? {}).map(([name, value]) => [name.toLowerCase(), new SecretValue(value)])),
    secretKey: plain.secret_key ? new SecretValue(plain.secret_key) : null,
    signingSecret: plain.signing_secret ? new SecretValue(plain.signing_secret) : null,
  };
}
