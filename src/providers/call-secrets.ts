/**
 * The secrets an upstream call was made with, to take out of what the vendor said back (`withoutSecrets` in
 * logger.ts): vendors quote a rejected key whole, masked in the middle (OpenAI's `sk-proj-abc…****…wxyz`),
 * percent-encoded in a URL, base64-encoded in a `Basic` header or a dump, and Bedrock quotes the parts of the
 * AWS key pair it was signed with. The request's own MCP server tokens (Anthropic's `mcp_servers`) travel to
 * the upstream too, and an upstream refusing one quotes it the same way. Pure.
 */
import type { AttemptCall } from '#src/providers/provider-adapter.ts';
import { apiKeyOf } from '#src/providers/provider-adapter.ts';

// A configured header value this short is a flag or a version, not a credential, and removing it whole would
// garble the vendor's words.
const SHORTEST_HEADER_SECRET = 8;

/**
 * The `authorization_token` of each of the request's `mcp_servers` (a passed-through field the gateway does not
 * type): the vendor's error about that server may quote it, and the error reaches the record, its exports and
 * the logs, where the token must not.
 */
export function requestMcpTokens(request: AttemptCall['request'] | undefined): string[] {
  const servers = (request as { mcp_servers?: unknown } | undefined)?.mcp_servers;
  if (!Array.isArray(servers)) return [];
  return servers.flatMap((server: unknown) => {
    const token = typeof server === 'object' && server !== null ? (server as { authorization_token?: unknown }).authorization_token : undefined;
    return typeof token === 'string' ? [token] : [];
  });
}

/**
 * Every secret one attempt sends upstream: its API key, or the AWS key pair (and session token) it signs with,
 * the values of the provider's configured headers (a proxy's token; the configuration treats them as secrets)
 * and the request's MCP server tokens.
 */
export function callSecrets(call: Pick<AttemptCall, 'key' | 'awsCredentials' | 'providerHeaders'> & { request?: AttemptCall['request'] }): string[] {
  const aws = call.awsCredentials;
  const headers = Object.values(call.providerHeaders ?? {}).filter((value) => value.length >= SHORTEST_HEADER_SECRET);
  const secrets = [apiKeyOf(call.key), aws?.accessKeyId, aws?.secretAccessKey, aws?.sessionToken, ...headers, ...requestMcpTokens(call.request)];
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
}
