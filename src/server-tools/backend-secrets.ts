/**
 * The secrets the gateway's tools send to their backends (an MCP server's configured headers, a search
 * backend's API key and headers, a token or a user's password in either's URL, and the Basic token that
 * password is sent as), and their removal from
 * everything those backends answer. A backend's words go to the model (a tool result, a tool description), to
 * the client (`mcp_tool_result`), into the generation record and its exports, and into log lines; a server
 * that quotes the token it was sent (a debug page, a `whoami` tool, an OAuth error) must not carry it into any
 * of them, whole or encoded. Pure.
 */
import { valueScrubber, type ValueScrubber } from '#src/logger.ts';
import type { SecretValue } from '#src/catalog/secret-value.ts';
import { userInfoSecrets } from '#src/http/url-user-info.ts';
import { pathSecrets } from './backend-url.ts';

// Shorter header values ("1", "yes", a version) are not secrets, and removing them would garble the text.
const SHORTEST_SECRET = 6;

/** The credential inside a header value: the token after its scheme, and a Basic pair's decoded forms. */
function credentialParts(value: string): string[] {
  const match = /^(\S+)\s+(\S+)$/.exec(value.trim());
  const scheme = match?.[1];
  const credential = match?.[2];
  if (scheme === undefined || credential === undefined) return [value];
  const parts = [value, credential];
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    // `user:password`, and the password alone, which a page may quote after decoding the header; with no
    // password (`token:`, a token given as the user name) the user name is the credential.
    if (Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') === credential.replace(/=+$/, '')) {
      const colon = decoded.indexOf(':');
      const password = decoded.slice(colon + 1);
      parts.push(decoded, password === '' && colon !== -1 ? decoded.slice(0, colon) : password);
    }
  }
  return parts;
}

/**
 * The values of a URL's query: servers that take their key in the URL (`?api_key=…`) are common, and as for a
 * destination's endpoint every value is treated as a secret (a flag is as likely a token as not).
 */
function queryValues(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  return [...new URL(url).searchParams.values()];
}

/**
 * Every secret a backend is called with: each configured header's value (and its parts), its API key, its
 * URL's query values, the token segments of its URL's path (backend-url.ts) and the password of its URL's
 * user-info (endpoint-query.ts).
 */
export function backendSecrets(options: { headers: Readonly<Record<string, SecretValue>>; apiKey?: SecretValue | null; url?: string }): string[] {
  const headers = Object.values(options.headers).flatMap((value) => credentialParts(value.reveal()));
  const values = [...headers, ...(options.apiKey ? [options.apiKey.reveal()] : []), ...queryValues(options.url), ...pathSecrets(options.url), ...userInfoSecrets(options.url)];
  const secrets = values.filter((secret) => secret.length >= SHORTEST_SECRET);
  return [...new Set(secrets)];
}

/** Removes a backend's secrets from every string of a value (`valueScrubber`). */
export type BackendScrubber = ValueScrubber;

/** The scrubber of a backend's secrets; the identity when it has none. */
export function backendScrubber(secrets: readonly string[]): BackendScrubber {
  return valueScrubber(secrets);
}
