/**
 * The secret parts of a backend's configured URL (an MCP server's `url`, a search backend's `base_url`) and
 * the URL as the gateway shows it. Hosted MCP servers put the caller's token in the path as often as in a
 * header (Zapier's `https://mcp.zapier.com/api/mcp/s/<token>/mcp`, others' `https://host/<token>/sse`), so a
 * path segment shaped like a token is a secret, as are the query's values (backend-secrets.ts). Pure.
 */
import { REDACTED_VALUE, redactEndpoint } from '#src/observability/destinations/endpoint-query.ts';

/**
 * The shortest path segment taken for a token. Generated tokens (base64, hex, UUIDs, Zapier's) are longer;
 * the words of a path (`api`, `mcp`, `v1`, `sse`, `search`, a date) are letters or digits alone, or shorter.
 */
const SHORTEST_PATH_TOKEN = 16;

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Whether a path segment is a token: at least sixteen characters (percent-decoded) with both a letter and a
 * digit. A rule on the segment alone, so an operator can tell from the URL they wrote what is kept secret,
 * however the URL reached the file (written out, or whole from `${VAR}`). A token shorter than that, or of
 * letters alone, is not recognised: it belongs in a header or the query, whose values are always secret.
 */
export function isPathToken(segment: string): boolean {
  const text = decoded(segment);
  return text.length >= SHORTEST_PATH_TOKEN && /[A-Za-z]/.test(text) && /[0-9]/.test(text);
}

function pathOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).pathname : undefined;
}

/** The token segments of a URL's path, as written and percent-decoded (a server may quote either). */
export function pathSecrets(url: string | undefined): string[] {
  const path = url === undefined ? undefined : pathOf(url);
  if (path === undefined) return [];
  const segments = path.split('/').filter(isPathToken);
  return [...new Set(segments.flatMap((segment) => [segment, decoded(segment)]))];
}

/**
 * The URL as logs and messages show it: each token segment of its path, each value of its query, its fragment
 * and any user name or password as `***`, as destinations' endpoints are shown (endpoint-query.ts).
 */
export function shownUrl(url: string): string {
  if (!URL.canParse(url)) return REDACTED_VALUE;
  const parsed = new URL(url);
  const tail = url.search(/[?#]/);
  const path = parsed.pathname
    .split('/')
    .map((segment) => (isPathToken(segment) ? REDACTED_VALUE : segment))
    .join('/');
  const user = parsed.username !== '' || parsed.password !== '' ? `${REDACTED_VALUE}@` : '';
  return `${parsed.protocol}//${user}${parsed.host}${path}${tail === -1 ? '' : redactEndpoint(`x${url.slice(tail)}`).slice(1)}`;
}
