/**
 * The server tools' configuration as the tools read it: the checked `server_tools:` section with its defaults
 * filled in, rules across fields applied, and secrets (API keys, header values) wrapped in `SecretValue` so
 * they never print. Built once at start-up; every field is documented in switchboard.example.yaml.
 */
import type { ConfigProblem } from '#src/catalog/config-readers.ts';
import { SecretValue } from '#src/catalog/secret-value.ts';
import { parseAllowlistEntry, type AllowlistEntry } from './web-fetch/address-policy.ts';
import type { ServerToolsSection } from './server-tools-config-schema.ts';
import { userInfoConflict } from '#src/http/url-user-info.ts';

/** Which search API `gateway:web_search` calls. */
export type SearchBackendKind = 'searxng' | 'brave';

/** The search backend and the limits of `gateway:web_search`. */
export interface WebSearchConfig {
  backend: SearchBackendKind;
  baseUrl: string;
  apiKey: SecretValue | null;
  headers: Readonly<Record<string, SecretValue>>;
  defaultMaxResults: number;
  maxResults: number;
  maxQueryLength: number;
  timeoutMs: number;
}

/** The limits and allowlist of `gateway:web_fetch`. */
export interface WebFetchConfig {
  enabled: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxContentChars: number;
  contentTypes: readonly string[];
  allowlist: readonly AllowlistEntry[];
  userAgent: string;
}

/** One MCP server (Streamable HTTP) whose tools requests may use. */
export interface McpServerConfig {
  name: string;
  url: string;
  headers: Readonly<Record<string, SecretValue>>;
  timeoutMs: number;
  toolListTtlMs: number;
  /** Longest text of one tool result given to the model (and the client); longer text is cut. */
  maxOutputChars: number;
}

/** Everything the gateway's own tools read from configuration. */
export interface ServerToolsConfig {
  /** Null when no search backend is configured: `gateway:web_search` is then a 400. */
  webSearch: WebSearchConfig | null;
  webFetch: WebFetchConfig;
  mcpServers: ReadonlyMap<string, McpServerConfig>;
}

/** Brave's documented endpoint and its per-request ceiling on `count`. */
export const BRAVE_BASE_URL = 'https://api.search.brave.com';
const BRAVE_MAX_COUNT = 20;

/** Defaults, documented in switchboard.example.yaml. */
export const SERVER_TOOL_DEFAULTS = {
  webSearch: { defaultMaxResults: 5, maxResults: 10, maxQueryLength: 400, timeoutMs: 10_000 },
  webFetch: {
    enabled: true,
    timeoutMs: 15_000,
    maxBytes: 10 * 1024 * 1024,
    maxRedirects: 5,
    maxContentChars: 100_000,
    contentTypes: ['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'text/csv', 'application/json', 'application/xml', 'text/xml', 'application/pdf'],
    userAgent: 'Switchboard-WebFetch/1.0',
  },
  mcp: { timeoutMs: 30_000, toolListTtlMs: 300_000, maxOutputChars: 100_000 },
} as const;

function secrets(headers: Readonly<Record<string, string>> | undefined): Readonly<Record<string, SecretValue>> {
  return Object.freeze(Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, new SecretValue(value)])));
}

/**
 * A URL's user-info is sent as `Authorization: Basic` (src/http/url-user-info.ts): an `authorization` header
 * configured beside it (any case) is a second credential for the same backend, named without its value.
 */
function checkUserInfoConflict(url: string | undefined, headers: Readonly<Record<string, string>> | undefined, path: string, urlField: string, problems: ConfigProblem[]): void {
  const conflict = userInfoConflict(url, Object.keys(headers ?? {}));
  if (conflict !== null) problems.push({ path: `${path}.headers.${conflict}`, message: `conflicts with the user name and password in ${urlField}, which are sent as Authorization: Basic; give one or the other` });
}

function resolveWebSearch(section: NonNullable<ServerToolsSection['web_search']>, problems: ConfigProblem[]): WebSearchConfig {
  const path = 'server_tools.web_search';
  const defaults = SERVER_TOOL_DEFAULTS.webSearch;
  const maxResults = section.max_results ?? (section.backend === 'brave' ? Math.min(defaults.maxResults, BRAVE_MAX_COUNT) : defaults.maxResults);
  const defaultMaxResults = section.default_max_results ?? Math.min(defaults.defaultMaxResults, maxResults);
  if (section.backend === 'searxng' && section.base_url === undefined) problems.push({ path: `${path}.base_url`, message: 'is required for the searxng backend (the instance, e.g. http://127.0.0.1:8888)' });
  if (section.backend === 'brave' && section.api_key === undefined) problems.push({ path: `${path}.api_key`, message: 'is required for the brave backend (its X-Subscription-Token)' });
  if (section.backend === 'searxng' && section.api_key !== undefined) problems.push({ path: `${path}.api_key`, message: 'is not used by the searxng backend (give credentials in headers)' });
  if (section.backend === 'brave' && maxResults > BRAVE_MAX_COUNT) problems.push({ path: `${path}.max_results`, message: `must be at most ${BRAVE_MAX_COUNT}: Brave answers at most ${BRAVE_MAX_COUNT} results per search` });
  checkUserInfoConflict(section.base_url, section.headers, path, 'base_url', problems);
  if (defaultMaxResults > maxResults) problems.push({ path: `${path}.default_max_results`, message: `must not exceed max_results (${maxResults})` });
  return Object.freeze({
    backend: section.backend,
    baseUrl: section.base_url ?? BRAVE_BASE_URL,
    apiKey: section.api_key === undefined ? null : new SecretValue(section.api_key),
    headers: secrets(section.headers),
    defaultMaxResults,
    maxResults,
    maxQueryLength: section.max_query_length ?? defaults.maxQueryLength,
    timeoutMs: section.timeout_ms ?? defaults.timeoutMs,
  });
}

function resolveWebFetch(section: ServerToolsSection['web_fetch'], problems: ConfigProblem[]): WebFetchConfig {
  const defaults = SERVER_TOOL_DEFAULTS.webFetch;
  const allowlist: AllowlistEntry[] = [];
  (section?.private_network_allowlist ?? []).forEach((raw, index) => {
    const entry = parseAllowlistEntry(raw);
    if ('error' in entry) problems.push({ path: `server_tools.web_fetch.private_network_allowlist[${index}]`, message: entry.error });
    else allowlist.push(entry);
  });
  return Object.freeze({
    enabled: section?.enabled ?? defaults.enabled,
    timeoutMs: section?.timeout_ms ?? defaults.timeoutMs,
    maxBytes: section?.max_bytes ?? defaults.maxBytes,
    maxRedirects: section?.max_redirects ?? defaults.maxRedirects,
    maxContentChars: section?.max_content_chars ?? defaults.maxContentChars,
    contentTypes: Object.freeze([...(section?.content_types ?? defaults.contentTypes)]),
    allowlist: Object.freeze(allowlist),
    userAgent: section?.user_agent ?? defaults.userAgent,
  });
}

/** Fills in defaults and checks rules across fields; problems are reported with their path in the file. */
export function resolveServerToolsConfig(section: ServerToolsSection | undefined, problems: ConfigProblem[]): ServerToolsConfig {
  const servers = Object.entries(section?.mcp_servers ?? {}).map(([name, server]): [string, McpServerConfig] => {
    checkUserInfoConflict(server.url, server.headers, `server_tools.mcp_servers.${name}`, 'url', problems);
    const config: McpServerConfig = {
      name,
      url: server.url,
      headers: secrets(server.headers),
      timeoutMs: server.timeout_ms ?? SERVER_TOOL_DEFAULTS.mcp.timeoutMs,
      toolListTtlMs: server.tool_list_ttl_ms ?? SERVER_TOOL_DEFAULTS.mcp.toolListTtlMs,
      maxOutputChars: server.max_output_chars ?? SERVER_TOOL_DEFAULTS.mcp.maxOutputChars,
    };
    return [name, Object.freeze(config)];
  });
  return Object.freeze({
    webSearch: section?.web_search ? resolveWebSearch(section.web_search, problems) : null,
    webFetch: resolveWebFetch(section?.web_fetch, problems),
    mcpServers: new Map(servers),
  });
}

/** The configuration with no `server_tools:` section: web fetch and datetime with their defaults, nothing else. */
export const DEFAULT_SERVER_TOOLS_CONFIG: ServerToolsConfig = resolveServerToolsConfig(undefined, []);
