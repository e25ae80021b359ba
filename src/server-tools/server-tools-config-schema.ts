/**
 * The `server_tools:` section of the configuration file (`SWITCHBOARD_CONFIG`), checked field by field with
 * the catalog's readers: the web search backend, the web fetch limits and allowlist, and the MCP servers whose
 * tools requests may use. Rules across fields (a backend's required settings, the allowlist's entries) are
 * checked when the section is resolved (see server-tools-config.ts).
 */
import { boolean, dictionary, list, number, oneOf, record, string, url, type ReadType } from '#src/catalog/config-readers.ts';

/** MCP server names: what a request's `gateway:mcp` entry names in `server`. */
export const MCP_SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The search backends the gateway speaks. */
export const SEARCH_BACKENDS = ['searxng', 'brave'] as const;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

const milliseconds = () => number({ minimum: 1, integer: true });
const positive = () => number({ minimum: 1, integer: true });
// Header values often carry credentials (`Authorization: Bearer ${TOKEN}`): never echoed in a message.
const headers = () => dictionary(string({ secret: true }), { keyPattern: HEADER_NAME, expectedKey: 'an HTTP header name' });

const webSearch = record(
  {
    backend: oneOf(SEARCH_BACKENDS),
    base_url: url(),
    api_key: string({ secret: true, minLength: 1 }),
    headers: headers(),
    default_max_results: positive(),
    max_results: positive(),
    max_query_length: positive(),
    timeout_ms: milliseconds(),
  },
  ['backend'],
);

const webFetch = record({
  enabled: boolean(),
  timeout_ms: milliseconds(),
  max_bytes: positive(),
  max_redirects: number({ minimum: 0, integer: true }),
  max_content_chars: positive(),
  content_types: list(string({ pattern: MEDIA_TYPE, expected: 'a lowercase media type such as text/html' }), { minItems: 1, unique: true }),
  private_network_allowlist: list(string({ minLength: 1 }), { unique: true }),
  user_agent: string({ minLength: 1 }),
});

const mcpServer = record(
  {
    url: url(),
    headers: headers(),
    timeout_ms: milliseconds(),
    tool_list_ttl_ms: number({ minimum: 0, integer: true }),
    max_output_chars: positive(),
  },
  ['url'],
);

/** Reads the `server_tools:` section. */
export const readServerToolsSection = record({
  web_search: webSearch,
  web_fetch: webFetch,
  mcp_servers: dictionary(mcpServer, { keyPattern: MCP_SERVER_NAME, expectedKey: 'an MCP server name (lowercase letters, digits, _ and -, at most 32)' }),
});

/** The `server_tools:` section after its shape was checked. */
export type ServerToolsSection = ReadType<typeof readServerToolsSection>;
