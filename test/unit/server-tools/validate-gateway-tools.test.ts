import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { hasGatewayTools, prefixesOverlap, validateGatewayTools } from '#src/server-tools/validate-gateway-tools.ts';
import { BUILT_IN_TOOLS } from '#src/server-tools/gateway-tool-registry.ts';
import { serverToolsConfig } from '#test/helpers/server-tool-context.ts';

const CONFIGURED = serverToolsConfig({
  web_search: { backend: 'searxng', base_url: 'http://127.0.0.1:8888', max_results: 8, default_max_results: 4 },
  web_fetch: { max_content_chars: 50_000 },
  mcp_servers: { orders: { url: 'http://127.0.0.1:9/mcp' }, docs: { url: 'http://127.0.0.1:9/docs' } },
});
const BARE = serverToolsConfig({ web_fetch: { enabled: false } });
const CLIENT_TOOL = { name: 'get_weather', input_schema: { type: 'object' } };

type Tools = NonNullable<MessageRequest['tools']>;

function rejection(tools: unknown[], config = CONFIGURED): { message: string; details: unknown } {
  try {
    validateGatewayTools(tools as Tools, config);
  } catch (error) {
    if (error instanceof BadRequestError) return { message: error.publicMessage, details: error.details };
    throw error;
  }
  throw new Error('accepted');
}

describe('gateway tool entries that are a 400 naming the field', () => {
  it.each([
    ['an unknown gateway tool', [CLIENT_TOOL, { type: 'gateway:code_execution' }], 'tools[1].type: unknown gateway tool gateway:code_execution (this gateway has gateway:web_search, gateway:web_fetch, gateway:datetime, gateway:mcp)'],
    ['web search without a backend', [{ type: 'gateway:web_search' }], 'tools[0].type: gateway:web_search is not available: this gateway has no search backend configured (server_tools.web_search)', BARE],
    ['more results than the ceiling', [{ type: 'gateway:web_search', max_results: 9 }], 'tools[0].max_results: must be at most 8 on this gateway, got 9'],
    ['web fetch disabled', [{ type: 'gateway:web_fetch' }], 'tools[0].type: gateway:web_fetch is disabled on this gateway (server_tools.web_fetch.enabled)', BARE],
    ['more content than the ceiling', [{ type: 'gateway:web_fetch', max_content_chars: 50_001 }], 'tools[0].max_content_chars: must be at most 50000 on this gateway, got 50001'],
    ['allowed and blocked domains together', [{ type: 'gateway:web_fetch', allowed_domains: ['a.com'], blocked_domains: ['b.com'] }], 'tools[0].blocked_domains: cannot be combined with allowed_domains'],
    ['a domain that is not a host name', [{ type: 'gateway:web_fetch', allowed_domains: ['example.com', 'https://x.com/'] }], 'tools[0].allowed_domains[1]: must be a host name such as example.com, got "https://x.com/"'],
    ['an unknown time zone', [{ type: 'gateway:datetime', timezone: 'Mars/Olympus_Mons' }], 'tools[0].timezone: "Mars/Olympus_Mons" is not an IANA time zone (e.g. Europe/Paris)'],
    ['a default name taken by a client tool', [{ name: 'web_fetch', input_schema: { type: 'object' } }, { type: 'gateway:web_fetch' }], 'tools[1].type: the model-facing name web_fetch is already the name of tools[0] (set "name" to choose another)'],
    ['a chosen name taken by a client tool', [CLIENT_TOOL, { type: 'gateway:datetime', name: 'get_weather' }], 'tools[1].name: the model-facing name get_weather is already the name of tools[0] (set "name" to choose another)'],
    ['a name taken by an Anthropic server tool', [{ type: 'web_search_20250305', name: 'web_search' }, { type: 'gateway:web_search' }], 'tools[1].type: the model-facing name web_search is already the name of tools[0] (set "name" to choose another)'],
    ['the same gateway tool twice', [{ type: 'gateway:datetime' }, { type: 'gateway:datetime' }], 'tools[1].type: the model-facing name datetime is already the name of tools[0] (set "name" to choose another)'],
    ['an MCP server that is not configured', [{ type: 'gateway:mcp', server: 'billing' }], 'tools[0].server: no MCP server named billing is configured on this gateway (configured: orders, docs)'],
    ['the same MCP server twice', [{ type: 'gateway:mcp', server: 'orders' }, { type: 'gateway:mcp', server: 'orders', allowed_tools: ['x'] }], 'tools[1].server: tools[0] already names the MCP server orders'],
    ['two MCP servers with one prefix', [{ type: 'gateway:mcp', server: 'orders', name: 'shop' }, { type: 'gateway:mcp', server: 'docs', name: 'shop' }], 'tools[1].name: tools[0] already names the MCP server orders with the prefix shop'],
    ['two MCP prefixes, one inside the other\'s namespace', [{ type: 'gateway:mcp', server: 'orders', name: 'shop__eu' }, { type: 'gateway:mcp', server: 'docs', name: 'shop' }], 'tools[1].name: the prefix shop overlaps the prefix shop__eu of tools[0] (MCP server orders): tool names of the form shop__<tool> and shop__eu__<tool> could be the same name; set "name" on one of them to a prefix that does not start with the other followed by __'],
    ['two MCP prefixes a trailing _ apart', [{ type: 'gateway:mcp', server: 'orders', name: 'shop' }, { type: 'gateway:mcp', server: 'docs', name: 'shop_' }], 'tools[1].name: the prefix shop_ overlaps the prefix shop of tools[0] (MCP server orders): tool names of the form shop___<tool> and shop__<tool> could be the same name; set "name" on one of them to a prefix that does not start with the other followed by __'],
    ['a client tool in an MCP server\'s namespace', [{ name: 'mcp__orders__refund', input_schema: { type: 'object' } }, { type: 'gateway:mcp', server: 'orders' }], 'tools[0].name: mcp__orders__refund starts with mcp__orders__, which tools[1] reserves for the tools of the MCP server orders'],
    ['a gateway tool in an MCP server\'s namespace', [{ type: 'gateway:mcp', server: 'docs', name: 'kb' }, { type: 'gateway:datetime', name: 'kb__clock' }], 'tools[1].name: kb__clock starts with kb__, which tools[0] reserves for the tools of the MCP server docs'],
  ])('%s', (_name, tools, reason, config = CONFIGURED) => {
    expect(rejection(tools, config).message).toBe(`Invalid request parameters: ${reason}`);
  });

  it('MCP prefixes that only share a beginning (shop, shopx, shop-eu) pass: no name can have both forms', () => {
    const tools = [{ type: 'gateway:mcp', server: 'orders', name: 'shop' }, { type: 'gateway:mcp', server: 'docs', name: 'shopx' }] as MessageRequest['tools'];
    expect(validateGatewayTools(tools, CONFIGURED).mcp.map((request) => request.prefix)).toEqual(['shop', 'shopx']);
    expect(prefixesOverlap('shop', 'shop-eu')).toBe(false);
  });

  it('the details point at the field as the validator does', () => {
    expect(rejection([{ type: 'gateway:web_search', max_results: 99 }]).details).toEqual([{ path: '/body/tools/0/max_results', message: 'must be at most 8 on this gateway, got 99' }]);
  });
});

describe('what passes', () => {
  it('built-in tools resolved with their settings, MCP servers waiting for their lists', () => {
    const validated = validateGatewayTools(
      [
        CLIENT_TOOL,
        { type: 'gateway:web_search', cache_control: { type: 'ephemeral' } },
        { type: 'gateway:web_fetch', name: 'read_page', allowed_domains: ['Docs.Example.com', '*.example.org'] },
        { type: 'gateway:datetime', timezone: 'Asia/Tokyo' },
        { type: 'gateway:mcp', server: 'orders', allowed_tools: ['lookup_order'] },
      ] as Tools,
      CONFIGURED,
    );
    expect(validated.builtIn).toEqual([
      { kind: 'web_search', modelName: 'web_search', description: BUILT_IN_TOOLS.web_search.description, inputSchema: BUILT_IN_TOOLS.web_search.inputSchema, cacheControl: { type: 'ephemeral' }, settings: { maxResults: 4 } },
      { kind: 'web_fetch', modelName: 'read_page', description: BUILT_IN_TOOLS.web_fetch.description, inputSchema: BUILT_IN_TOOLS.web_fetch.inputSchema, settings: { maxContentChars: 50_000, allowedDomains: ['docs.example.com', 'example.org'], blockedDomains: [] } },
      { kind: 'datetime', modelName: 'datetime', description: BUILT_IN_TOOLS.datetime.description, inputSchema: BUILT_IN_TOOLS.datetime.inputSchema, settings: { defaultTimezone: 'Asia/Tokyo' } },
    ]);
    expect(validated.mcp).toEqual([{ index: 4, server: 'orders', prefix: 'mcp__orders', allowedTools: ['lookup_order'] }]);
    expect([...validated.takenNames].sort()).toEqual(['datetime', 'get_weather', 'read_page', 'web_search']);
  });

  it('a request without gateway tools has nothing to check', () => {
    expect(validateGatewayTools(undefined, BARE)).toEqual({ builtIn: [], mcp: [], takenNames: new Set() });
    expect(validateGatewayTools([CLIENT_TOOL] as unknown as Tools, BARE).builtIn).toEqual([]);
  });

  it.each([
    [undefined, false],
    [[CLIENT_TOOL], false],
    [[{ type: 'web_search_20250305', name: 'web_search' }], false],
    [[CLIENT_TOOL, { type: 'gateway:datetime' }], true],
    [[{ type: 'gateway:anything' }], true],
  ])('hasGatewayTools(%j) is %s', (tools, expected) => {
    expect(hasGatewayTools(tools as Tools | undefined)).toBe(expected);
  });
});
