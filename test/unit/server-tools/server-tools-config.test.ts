import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { CatalogConfigError } from '#src/catalog/catalog-config-error.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { SERVER_TOOL_DEFAULTS } from '#src/server-tools/server-tools-config.ts';
import { writeConfig } from '#test/unit/catalog/catalog-test-files.ts';

function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  return loadCatalog({ configPath: writeConfig(yaml), env }).serverTools;
}

function problems(yaml: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    load(yaml, env);
  } catch (error) {
    if (error instanceof CatalogConfigError) return error.problems.map((problem) => `${problem.path}: ${problem.message}`);
    throw error;
  }
  throw new Error('accepted');
}

describe('the server_tools section of SWITCHBOARD_CONFIG', () => {
  it('without it: web fetch and datetime with their defaults, no search backend, no MCP server', () => {
    const config = loadCatalog({ env: {} }).serverTools;
    expect(config.webSearch).toBeNull();
    expect(config.mcpServers.size).toBe(0);
    expect(config.webFetch).toEqual({ ...SERVER_TOOL_DEFAULTS.webFetch, allowlist: [] });
  });

  it('a Brave backend with its key from the environment, kept secret', () => {
    const config = load('server_tools:\n  web_search: { backend: brave, api_key: "${BRAVE_KEY}" }\n', { BRAVE_KEY: 'BSA-secret-key-123' });
    expect(config.webSearch).toMatchObject({ backend: 'brave', baseUrl: 'https://api.search.brave.com', defaultMaxResults: 5, maxResults: 10, maxQueryLength: 400, timeoutMs: 10_000 });
    expect(config.webSearch?.apiKey?.reveal()).toBe('BSA-secret-key-123');
    expect(JSON.stringify(config.webSearch)).not.toContain('BSA-secret-key-123');
    expect(inspect(config.webSearch, { depth: 5 })).not.toContain('BSA-secret-key-123');
  });

  it('an authorization header beside a URL\'s user-info is a problem naming the header, never the password', () => {
    const found = problems(
      'server_tools:\n  web_search: { backend: searxng, base_url: "https://s:${P}@searx.example.org", headers: { AUTHORIZATION: "Bearer x" } }\n  mcp_servers:\n    docs: { url: "https://d:${P}@mcp.example.org/mcp", headers: { authorization: "Bearer y" } }\n    ok: { url: "https://d:${P}@mcp.example.org/mcp" }\n',
      { P: 'pw-never-shown-1' },
    );
    expect(found).toEqual([
      'server_tools.mcp_servers.docs.headers.authorization: conflicts with the user name and password in url, which are sent as Authorization: Basic; give one or the other',
      'server_tools.web_search.headers.AUTHORIZATION: conflicts with the user name and password in base_url, which are sent as Authorization: Basic; give one or the other',
    ]);
  });

  it('MCP servers with their headers and limits', () => {
    const config = load('server_tools:\n  mcp_servers:\n    docs: { url: "http://127.0.0.1:8931/mcp/", headers: { X-Api-Key: "${T}" }, tool_list_ttl_ms: 0 }\n', { T: 'tok' });
    const docs = config.mcpServers.get('docs');
    expect(docs).toMatchObject({ name: 'docs', url: 'http://127.0.0.1:8931/mcp', timeoutMs: 30_000, toolListTtlMs: 0, maxOutputChars: 100_000 });
    expect(docs?.headers['X-Api-Key']?.reveal()).toBe('tok');
  });

  it.each([
    ['searxng without base_url', 'server_tools:\n  web_search: { backend: searxng }\n', 'server_tools.web_search.base_url: is required for the searxng backend (the instance, e.g. http://127.0.0.1:8888)'],
    ['brave without a key', 'server_tools:\n  web_search: { backend: brave }\n', 'server_tools.web_search.api_key: is required for the brave backend (its X-Subscription-Token)'],
    ['an unknown backend', 'server_tools:\n  web_search: { backend: google }\n', 'server_tools.web_search.backend: must be one of searxng, brave, got "google"'],
    ['brave above its ceiling', 'server_tools:\n  web_search: { backend: brave, api_key: k, max_results: 30 }\n', 'server_tools.web_search.max_results: must be at most 20: Brave answers at most 20 results per search'],
    ['a default above the ceiling', 'server_tools:\n  web_search: { backend: searxng, base_url: "http://127.0.0.1:1", max_results: 3, default_max_results: 4 }\n', 'server_tools.web_search.default_max_results: must not exceed max_results (3)'],
    ['a bad allowlist entry', 'server_tools:\n  web_fetch: { private_network_allowlist: ["10.0.0.0/8", "10.0.0.0/99"] }\n', 'server_tools.web_fetch.private_network_allowlist[1]: is not a valid CIDR range, got "10.0.0.0/99"'],
    ['a content type that is not one', 'server_tools:\n  web_fetch: { content_types: [html] }\n', 'server_tools.web_fetch.content_types[0]: must be a lowercase media type such as text/html, got "html"'],
    ['an MCP server without url', 'server_tools:\n  mcp_servers:\n    docs: { headers: {} }\n', 'server_tools.mcp_servers.docs.url: is required'],
    ['an MCP server name that is not one', 'server_tools:\n  mcp_servers:\n    Docs Server: { url: "http://127.0.0.1:1" }\n', 'server_tools.mcp_servers.Docs Server: is not an MCP server name (lowercase letters, digits, _ and -, at most 32)'],
    ['a misspelt field', 'server_tools:\n  web_fetch: { max_byte: 10 }\n', 'server_tools.web_fetch.max_byte: is not a known field (expected one of enabled, timeout_ms, max_bytes, max_redirects, max_content_chars, content_types, private_network_allowlist, user_agent)'],
  ])('%s stops start-up naming the path', (_name, yaml, problem) => {
    expect(problems(yaml)).toContain(problem);
  });

  it('a header value is never quoted in a problem', () => {
    const found = problems('server_tools:\n  mcp_servers:\n    docs: { url: "http://127.0.0.1:1", headers: { Authorization: [ "Bearer very-secret" ] } }\n');
    expect(found).toEqual(['server_tools.mcp_servers.docs.headers.Authorization: must be a string, got a list']);
  });
});
