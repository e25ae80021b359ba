import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  clientToolUseBlock,
  executeGatewayTool,
  resolveGatewayTools,
  validateGatewayTools,
  type McpTool,
  type ServerToolRuntime,
  type ServerToolsConfig,
} from '#src/server-tools/index.ts';
import type { MessageRequest } from '#src/api-types.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { startMcpTestServer, type McpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { callOf, serverToolsConfig, toolContext } from '#test/helpers/server-tool-context.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { writeConfig } from '#test/unit/catalog/catalog-test-files.ts';

let server: McpTestServer;
const runtimes: ServerToolRuntime[] = [];
let clock = Date.parse('2026-03-14T09:00:00Z');

beforeEach(async () => {
  server = await startMcpTestServer();
});

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await server.close();
});

afterAll(() => undefined);

function setUp(config: ServerToolsConfig) {
  const built = toolContext(config, { now: () => new Date(clock) });
  runtimes.push(built.runtime);
  const resolve = async (entry: Record<string, unknown>) => {
    const validated = validateGatewayTools([entry] as MessageRequest['tools'], config);
    return resolveGatewayTools(validated, built.runtime);
  };
  return { ...built, resolve };
}

function ordersConfig(extra: Record<string, unknown> = {}): ServerToolsConfig {
  return serverToolsConfig({ mcp_servers: { orders: { url: server.url, timeout_ms: 5_000, ...extra } } });
}

function toolNamed(tools: readonly unknown[], name: string): McpTool {
  const tool = (tools as McpTool[]).find((candidate) => candidate.settings.toolName === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

describe('an MCP server\'s tools become gateway tools', () => {
  it('named mcp__<server>__<tool>, with the server\'s descriptions and input schemas', async () => {
    const { resolve } = setUp(ordersConfig());
    const { tools, warnings } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    expect(warnings).toEqual([]);
    expect(tools.map((tool) => tool.modelName)).toEqual(['mcp__orders__lookup_order', 'mcp__orders__explode', 'mcp__orders__slow', 'mcp__orders__report', 'mcp__orders__wait', 'mcp__orders__cut']);
    const lookup = toolNamed(tools, 'lookup_order');
    expect(lookup.description).toBe('Looks up an order by its id.');
    expect(lookup.inputSchema).toMatchObject({ type: 'object', properties: { order_id: { type: 'string', description: 'The order id, e.g. A-1001' } }, required: ['order_id'] });
  });

  it('allowed_tools and a prefix of the request\'s choosing; unknown names are a warning', async () => {
    const { resolve } = setUp(ordersConfig());
    const { tools, warnings } = await resolve({ type: 'gateway:mcp', server: 'orders', name: 'shop', allowed_tools: ['lookup_order', 'refund'] });
    expect(tools.map((tool) => tool.modelName)).toEqual(['shop__lookup_order']);
    expect(warnings).toEqual(['tools[0].allowed_tools: the MCP server orders has no tool refund']);
  });

  it('a successful call: the model reads the text, the client sees mcp_tool_use and mcp_tool_result', async () => {
    const { context, resolve } = setUp(ordersConfig());
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    const call = callOf(toolNamed(tools, 'lookup_order'), { order_id: 'A-1001' });
    expect(clientToolUseBlock(call)).toEqual({ type: 'mcp_tool_use', id: call.id, name: 'lookup_order', server_name: 'orders', input: { order_id: 'A-1001' } });
    const outcome = await executeGatewayTool(call, context);
    expect(outcome).toEqual({
      toolUseId: call.id,
      isError: false,
      modelContent: [{ type: 'text', text: 'Order A-1001: shipped on 2026-03-02, 2 items.' }],
      modelText: 'Order A-1001: shipped on 2026-03-02, 2 items.',
      clientResult: { type: 'mcp_tool_result', tool_use_id: call.id, is_error: false, content: [{ type: 'text', text: 'Order A-1001: shipped on 2026-03-02, 2 items.' }] },
      usage: { mcp_requests: 1 },
    });
    expectSpecBlock(clientToolUseBlock(call));
    expectSpecBlock(outcome.clientResult);
  });

  it('structured content without text reaches the model as JSON', async () => {
    const { context, resolve } = setUp(ordersConfig());
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    const outcome = await executeGatewayTool(callOf(toolNamed(tools, 'report'), {}), context);
    expect(outcome.modelText).toBe('{"total":42}');
  });
});

describe('MCP failures are error results, never exceptions', () => {
  it('a tool that throws', async () => {
    const { context, resolve } = setUp(ordersConfig());
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    const outcome = await executeGatewayTool(callOf(toolNamed(tools, 'explode'), {}), context);
    expect(outcome.isError).toBe(true);
    expect(outcome.modelText).toContain('the orders database is unreachable');
    expect(outcome.clientResult).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expectSpecBlock(outcome.clientResult);
  });

  it('invalid input the server rejects', async () => {
    const { context, resolve } = setUp(ordersConfig());
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    const outcome = await executeGatewayTool(callOf(toolNamed(tools, 'lookup_order'), { order: 7 }), context);
    expect(outcome.isError).toBe(true);
    expect(outcome.modelText).toContain('order_id');
  });

  it('the server stopped in the middle of a call', async () => {
    const { context, resolve } = setUp(ordersConfig({ timeout_ms: 15_000 }));
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    const pending = executeGatewayTool(callOf(toolNamed(tools, 'slow'), {}), context);
    await server.slowStarted();
    const stopped = Date.now();
    await server.close();
    const outcome = await pending;
    expect(outcome.isError).toBe(true);
    expect(outcome.clientResult).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(outcome.modelText).toContain('the MCP server orders failed');
    expect(Date.now() - stopped).toBeLessThan(5_000);
  });

  it('a server that is down: no tools offered, a warning; a call with a cached list is an error result', async () => {
    const { context, resolve } = setUp(ordersConfig());
    const { tools } = await resolve({ type: 'gateway:mcp', server: 'orders' });
    await server.close();
    const outcome = await executeGatewayTool(callOf(toolNamed(tools, 'lookup_order'), { order_id: 'A-1' }), context);
    expect(outcome.isError).toBe(true);
    expect(outcome.modelText).toMatch(/^Error \(unavailable\): the MCP server orders failed: /);
    // The failed call marked the list stale; the refresh fails too, so the old list is still offered.
    const again = await resolve({ type: 'gateway:mcp', server: 'orders' });
    expect(again.tools).toHaveLength(6);
    const fresh = setUp(ordersConfig());
    expect(await fresh.resolve({ type: 'gateway:mcp', server: 'orders' })).toEqual({ tools: [], warnings: ['tools[0]: the MCP server orders could not be reached; its tools are not offered'] });
  });
});

describe('the tool list is cached', () => {
  it('listed once within the TTL, again after it', async () => {
    const { resolve } = setUp(ordersConfig({ tool_list_ttl_ms: 60_000 }));
    await resolve({ type: 'gateway:mcp', server: 'orders' });
    await Promise.all([resolve({ type: 'gateway:mcp', server: 'orders' }), resolve({ type: 'gateway:mcp', server: 'orders', allowed_tools: ['slow'] })]);
    expect(server.toolListCalls()).toBe(1);
    clock += 61_000;
    await resolve({ type: 'gateway:mcp', server: 'orders' });
    expect(server.toolListCalls()).toBe(2);
  });

  it('a TTL of 0 lists every time', async () => {
    const { resolve } = setUp(ordersConfig({ tool_list_ttl_ms: 0 }));
    await resolve({ type: 'gateway:mcp', server: 'orders' });
    await resolve({ type: 'gateway:mcp', server: 'orders' });
    expect(server.toolListCalls()).toBe(2);
  });
});

describe('MCP servers from SWITCHBOARD_CONFIG', () => {
  it('headers with ${VAR} secrets reach the server and never a log line', async () => {
    const file = writeConfig(`server_tools:\n  mcp_servers:\n    orders:\n      url: ${server.url}\n      headers: { Authorization: "Bearer \${ORDERS_MCP_TOKEN}" }\n`);
    const catalog = loadCatalog({ configPath: file, env: { ORDERS_MCP_TOKEN: 'mcp-secret-token-7781' } });
    const { context, runtime, logs } = toolContext(catalog.serverTools);
    runtimes.push(runtime);
    const validated = validateGatewayTools([{ type: 'gateway:mcp', server: 'orders' }] as MessageRequest['tools'], catalog.serverTools);
    const { tools } = await resolveGatewayTools(validated, runtime);
    await executeGatewayTool(callOf(toolNamed(tools, 'lookup_order'), { order_id: 'A-2' }), context);
    expect(server.headers.length).toBeGreaterThan(1);
    for (const headers of server.headers) expect(headers.authorization).toBe('Bearer mcp-secret-token-7781');
    expect(JSON.stringify(catalog.serverTools.mcpServers.get('orders'))).not.toContain('mcp-secret-token-7781');
    expect(logs.join('\n')).not.toContain('mcp-secret-token-7781');
  });
});
