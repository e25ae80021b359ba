/**
 * The secrets an upstream call was made with, to take out of what the vendor said back (`withoutSecrets` in
 * logger.ts): vendors quote a rejected key whole, masked in the middle (OpenAI's `sk-proj-abc…****…wxyz`),
 * percent-encoded in a URL, base64-encoded in a `Basic` header or a dump, and Bedrock quotes the parts of the
 * AWS key pair it was signed with. Pure.
 */
import type { AttemptCall } from '#src/providers/provider-adapter.ts';
import { apiKeyOf } from '#src/providers/provider-adapter.ts';

/** Every secret one attempt sends upstream: its API key, or the AWS key pair (and session token) it signs with. */
export function callSecrets(call: Pick<AttemptCall, 'key' | 'awsCredentials'>): string[] {
  const aws = call.awsCredentials;
  const secrets = [apiKeyOf(call.key), aws?.accessKeyId, aws?.secretAccessKey, aws?.sessionToken];
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
}
