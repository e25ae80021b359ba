/**
 * A destination as the broadcaster uses it: plain data with its secrets decrypted into `SecretValue`s, which
 * never print themselves. Built when the directory loads (API destinations) or at start (the config file).
 */
import type { DestinationKind, OtlpProtocol } from '#src/api-types.ts';
import type { SecretValue } from '#src/catalog/secret-value.ts';

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
