/**
 * A destination as the broadcaster uses it: plain data with its secrets decrypted into `SecretValue`s, which
 * never print themselves. Built when the directory loads (API destinations) or at start (the config file).
 */
import type { DestinationKind, OtlpProtocol } from '#src/api-types.ts';
import type { SecretValue } from '#src/catalog/secret-value.ts';
import { userInfoSecrets } from '#src/http/url-user-info.ts';

/** The secrets of a destination, by kind. */
export interface DestinationSecrets {
  /** OTLP: headers sent with every export. */
  headers: Record<string, SecretValue>;
  /** Langfuse: the secret key (the public key is not secret). */
  secretKey: SecretValue | null;
  /** Webhook: the HMAC-SHA256 signing secret. */
  signingSecret: SecretValue | null;
}

/** One destination ready to receive generations. */
export interface ActiveDestination {
  /** The row's UUID, or `config:<name>` for a destination of the configuration file. */
  id: string;
  name: string;
  kind: DestinationKind;
  endpoint: string;
  protocol: OtlpProtocol;
  publicKey: string | null;
  secrets: DestinationSecrets;
  samplingRate: number;
  includeContent: boolean;
  /** Changes whenever anything about the destination changes; its delivery channel is rebuilt then. */
  revision: string;
}

// A query value this short is no token, and removing it whole would garble the text it is removed from.
const SHORTEST_QUERY_SECRET = 8;

/**
 * Every secret a destination's deliveries carry, revealed, for removal by value (`withoutSecrets`) from what
 * a refusing destination says back: its headers' values, its secret key or signing secret, the values of its
 * endpoint's query (a token a collector takes there is a secret) and the password in its endpoint's user-info
 * with the Basic token it is sent as.
 */
export function destinationSecretValues(destination: Pick<ActiveDestination, 'endpoint' | 'secrets'>): string[] {
  const { headers, secretKey, signingSecret } = destination.secrets;
  const values = [...Object.values(headers), secretKey, signingSecret].flatMap((secret) => (secret ? [secret.reveal()] : []));
  for (const value of new URL(destination.endpoint).searchParams.values()) if (value.length >= SHORTEST_QUERY_SECRET) values.push(value);
  for (const value of userInfoSecrets(destination.endpoint)) if (value.length >= SHORTEST_QUERY_SECRET) values.push(value);
  return values.filter((value) => value.length > 0);
}
