/**
 * The rules for a request's gateway tool entries that the spec cannot say, as one pure function of the
 * request's `tools` and the configuration: each broken rule is a 400 naming the field. What passes comes back
 * as plain data: the built-in tools resolved, and the MCP servers still to be expanded into their tools.
 */
import type { CacheControl, GatewayMcpTool, MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { BUILT_IN_TOOLS, GATEWAY_TOOL_TYPES } from './gateway-tool-registry.ts';
import type { DatetimeTool, ResolvedGatewayTool, WebFetchTool, WebSearchTool } from './server-tool-types.ts';
import type { ServerToolsConfig } from './server-tools-config.ts';
import { isKnownTimezone } from './datetime/datetime-tool.ts';
import { defaultMcpPrefix } from './mcp/mcp-tool.ts';
import { normalizeHost } from './web-fetch/address-policy.ts';
import { isCountryCode, readSearchLocation, type SearchLocation } from './web-search/search-location.ts';

type ToolEntry = NonNullable<MessageRequest['tools']>[number];

/** A `gateway:mcp` entry, checked, waiting for its server's tool list. */
export interface McpToolRequest {
  index: number;
  server: string;
  /** Model-facing names are `<prefix>__<tool>`. */
  prefix: string;
  allowedTools: readonly string[] | null;
  cacheControl?: CacheControl;
}

/** The request's gateway tools after the rules. */
export interface ValidatedGatewayTools {
  builtIn: ResolvedGatewayTool[];
  mcp: McpToolRequest[];
  /** Every name already taken (client tools, built-in gateway tools): MCP names must avoid them. */
  takenNames: ReadonlySet<string>;
}

const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function typeOf(tool: ToolEntry): string | undefined {
  return 'type' in tool && typeof tool.type === 'string' ? tool.type : undefined;
}

/** Whether a tool entry is one the gateway runs (`gateway:<name>`). */
export function isGatewayToolEntry(tool: ToolEntry): boolean {
  return typeOf(tool)?.startsWith('gateway:') ?? false;
}

/** Whether the request names at least one gateway tool (and so runs the tool loop). */
export function hasGatewayTools(tools: MessageRequest['tools']): boolean {
  return (tools ?? []).some(isGatewayToolEntry);
}

function invalid(index: number, field: string, message: string): BadRequestError {
  const path = field === '' ? `tools[${index}]` : `tools[${index}].${field}`;
  return new BadRequestError(`${path}: ${message}`, { details: [{ path: `/body/tools/${index}${field === '' ? '' : `/${field}`}`, message }] });
}

function domains(entry: Record<string, unknown>, field: string, index: number): string[] | null {
  const list = entry[field];
  if (list === undefined) return null;
  return (list as string[]).map((domain, position) => {
    const host = normalizeHost(domain.trim().replace(/^\*\./, ''));
    if (!DOMAIN.test(host)) throw invalid(index, `${field}[${position}]`, `must be a host name such as example.com, got ${JSON.stringify(domain)}`);
    return host;
  });
}

/** The `user_location` of Anthropic's web search run by the gateway; a country not of two letters is a 400. */
function searchLocation(entry: Record<string, unknown>, index: number): SearchLocation | undefined {
  const location = entry.user_location as { country?: unknown } | null | undefined;
  if (typeof location !== 'object' || location === null) return undefined;
  if (location.country !== undefined && location.country !== null && !isCountryCode(location.country)) {
    throw invalid(index, 'user_location.country', `must be a two-letter ISO 3166-1 country code such as US, got ${JSON.stringify(location.country)}`);
  }
  return readSearchLocation(location);
}

function builtInTool(entry: Record<string, unknown>, index: number, config: ServerToolsConfig): WebSearchTool | WebFetchTool | DatetimeTool {
  const type = entry.type as string;
  const common = (kind: keyof typeof BUILT_IN_TOOLS) => ({
    modelName: typeof entry.name === 'string' ? entry.name : BUILT_IN_TOOLS[kind].defaultName,
    description: BUILT_IN_TOOLS[kind].description,
    inputSchema: BUILT_IN_TOOLS[kind].inputSchema,
    ...(entry.cache_control ? { cacheControl: entry.cache_control as CacheControl } : {}),
  });
  switch (type) {
    case 'gateway:web_search': {
      if (!config.webSearch) throw invalid(index, 'type', 'gateway:web_search is not available: this gateway has no search backend configured (server_tools.web_search)');
      const maxResults = (entry.max_results as number | undefined) ?? config.webSearch.defaultMaxResults;
      if (maxResults > config.webSearch.maxResults) throw invalid(index, 'max_results', `must be at most ${config.webSearch.maxResults} on this gateway, got ${maxResults}`);
      // Anthropic's web search tool run by the gateway (anthropic-web-search.ts) carries its own limits.
      if (entry.allowed_domains !== undefined && entry.blocked_domains !== undefined) throw invalid(index, 'blocked_domains', 'cannot be combined with allowed_domains');
      const settings: WebSearchTool['settings'] = { maxResults };
      if (typeof entry.max_uses === 'number') settings.maxUses = entry.max_uses;
      if (entry.allowed_domains !== undefined) settings.allowedDomains = domains(entry, 'allowed_domains', index);
      if (entry.blocked_domains !== undefined) settings.blockedDomains = domains(entry, 'blocked_domains', index) ?? [];
      const userLocation = searchLocation(entry, index);
      if (userLocation) settings.userLocation = userLocation;
      return { kind: 'web_search', ...common('web_search'), settings };
    }
    case 'gateway:web_fetch': {
      if (!config.webFetch.enabled) throw invalid(index, 'type', 'gateway:web_fetch is disabled on this gateway (server_tools.web_fetch.enabled)');
      const maxContentChars = (entry.max_content_chars as number | undefined) ?? config.webFetch.maxContentChars;
      if (maxContentChars > config.webFetch.maxContentChars) throw invalid(index, 'max_content_chars', `must be at most ${config.webFetch.maxContentChars} on this gateway, got ${maxContentChars}`);
      if (entry.allowed_domains !== undefined && entry.blocked_domains !== undefined) throw invalid(index, 'blocked_domains', 'cannot be combined with allowed_domains');
      const settings = { maxContentChars, allowedDomains: domains(entry, 'allowed_domains', index), blockedDomains: domains(entry, 'blocked_domains', index) ?? [] };
      return { kind: 'web_fetch', ...common('web_fetch'), settings };
    }
    case 'gateway:datetime': {
      const timezone = (entry.timezone as string | undefined) ?? 'UTC';
      if (!isKnownTimezone(timezone)) throw invalid(index, 'timezone', `${JSON.stringify(timezone)} is not an IANA time zone (e.g. Europe/Paris)`);
      return { kind: 'datetime', ...common('datetime'), settings: { defaultTimezone: timezone } };
    }
    default:
      throw invalid(index, 'type', `unknown gateway tool ${type} (this gateway has ${GATEWAY_TOOL_TYPES.join(', ')})`);
  }
}

function mcpRequest(entry: GatewayMcpTool, index: number, config: ServerToolsConfig): McpToolRequest {
  if (!config.mcpServers.has(entry.server)) {
    const known = [...config.mcpServers.keys()];
    throw invalid(index, 'server', `no MCP server named ${entry.server} is configured on this gateway${known.length > 0 ? ` (configured: ${known.join(', ')})` : ''}`);
  }
  return {
    index,
    server: entry.server,
    prefix: entry.name ?? defaultMcpPrefix(entry.server),
    allowedTools: entry.allowed_tools ?? null,
    ...(entry.cache_control ? { cacheControl: entry.cache_control } : {}),
  };
}

/**
 * Whether two MCP prefixes' names can meet: `a__<tool>` and `b__<tool>` share a name when one of `a__`, `b__`
 * starts with the other (`mcp__docs` and `mcp__docs__x`, or `mcp__a` and `mcp__a_`), as server names may hold `__`.
 */
export function prefixesOverlap(a: string, b: string): boolean {
  return `${a}__`.startsWith(`${b}__`) || `${b}__`.startsWith(`${a}__`);
}

/** Checks the request's gateway tool entries against the rules and the configuration; throws a 400 naming the field. */
export function validateGatewayTools(tools: MessageRequest['tools'], config: ServerToolsConfig): ValidatedGatewayTools {
  const entries = tools ?? [];
  const clientNames = new Map<string, number>();
  entries.forEach((tool, index) => {
    if (!isGatewayToolEntry(tool) && 'name' in tool && typeof tool.name === 'string') clientNames.set(tool.name, index);
  });
  const builtIn: ResolvedGatewayTool[] = [];
  const mcp: McpToolRequest[] = [];
  const taken = new Map(clientNames);
  entries.forEach((tool, index) => {
    if (!isGatewayToolEntry(tool)) return;
    const entry = tool as unknown as Record<string, unknown>;
    if (entry.type === 'gateway:mcp') {
      const request = mcpRequest(tool as GatewayMcpTool, index, config);
      const twice = mcp.find((other) => other.server === request.server || other.prefix === request.prefix);
      if (twice) throw invalid(index, twice.server === request.server ? 'server' : 'name', `tools[${twice.index}] already names the MCP server ${twice.server}${twice.server === request.server ? '' : ` with the prefix ${request.prefix}`}`);
      const overlapping = mcp.find((other) => prefixesOverlap(other.prefix, request.prefix));
      if (overlapping) {
        throw invalid(
          index,
          'name',
          `the prefix ${request.prefix} overlaps the prefix ${overlapping.prefix} of tools[${overlapping.index}] (MCP server ${overlapping.server}): tool names of the form ${request.prefix}__<tool> and ${overlapping.prefix}__<tool> could be the same name; set "name" on one of them to a prefix that does not start with the other followed by __`,
        );
      }
      mcp.push(request);
      return;
    }
    const resolved = builtInTool(entry, index, config);
    const other = taken.get(resolved.modelName);
    if (other !== undefined) {
      const field = typeof entry.name === 'string' ? 'name' : 'type';
      throw invalid(index, field, `the model-facing name ${resolved.modelName} is already the name of tools[${other}] (set "name" to choose another)`);
    }
    taken.set(resolved.modelName, index);
    builtIn.push(resolved);
  });
  for (const request of mcp) {
    for (const [name, index] of taken) {
      if (name.startsWith(`${request.prefix}__`)) {
        throw invalid(index, 'name', `${name} starts with ${request.prefix}__, which tools[${request.index}] reserves for the tools of the MCP server ${request.server}`);
      }
    }
  }
  return { builtIn, mcp, takenNames: new Set(taken.keys()) };
}
