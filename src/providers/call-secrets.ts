/**
 * The secrets an upstream call was made with, to take out of what the vendor said back (`withoutSecrets` in
 * logger.ts): vendors quote a rejected key whole, masked in the middle (OpenAI's `sk-proj-abc…****…wxyz`),
 * percent-encoded in a URL, base64-encoded in a `Basic` header or a dump, and Bedrock quotes the parts of the
 * AWS key pair it was signed with. Pure.
 */
import type { AttemptCall } from '#src/providers/provider-adapter.ts';
import { apiKeyOf } from '#src/providers/provider-adapter.ts';

// A configured header value this short is a flag or a version, not a credential, and removing it whole would
// garble the vendor's words.
const SHORTEST_HEADER_SECRET = 8;

/**
 * Every secret one attempt sends upstream: its API key, or the AWS key pair (and session token) it signs with,
 * and the values of the provider's configured headers (a proxy's token; the configuration treats them as secrets).
 */
export function callSecrets(call: Pick<AttemptCall, 'key' | 'awsCredentials' | 'providerHeaders'>): string[] {
  const aws = call.awsCredentials;
  const headers = Object.values(call.providerHeaders ?? {}).filter((value) => value.length >= SHORTEST_HEADER_SECRET);
  const secrets = [apiKeyOf(call.key), aws?.accessKeyId, aws?.secretAccessKey, aws?.sessionToken, ...headers];
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
}
