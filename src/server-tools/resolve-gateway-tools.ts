/**
 * Completes a request's gateway tools: each `gateway:mcp` entry becomes one tool per tool its server lists
 * (or per `allowed_tools` entry the server has), with the server's description and input schema. A server
 * that cannot be listed and has no cached list contributes no tools and a warning, never a failed request.
 */
import type { McpTool, ResolvedGatewayTool } from './server-tool-types.ts';
import type { ServerToolRuntime } from './server-tool-runtime.ts';
import type { McpToolRequest, ValidatedGatewayTools } from './validate-gateway-tools.ts';
import type { McpToolInfo } from './mcp/mcp-connections.ts';
import { mcpModelToolNames } from './mcp/mcp-tool.ts';

/** The request's gateway tools as offered to the model, and what could not be offered. */
export interface ResolvedGatewayTools {
  tools: ResolvedGatewayTool[];
  warnings: string[];
}

function inputSchemaOf(tool: McpToolInfo): Record<string, unknown> {
  const schema = tool.inputSchema;
  // MCP requires an object schema; a server that sends something else still gets a callable tool.
  if (schema.type !== 'object') return { type: 'object', properties: {} };
  // A tool without arguments may list a bare `{"type": "object"}`, which OpenAI refuses ("object schema missing properties").
  return schema.properties === undefined ? { ...schema, properties: {} } : schema;
}

/** The tools one `gateway:mcp` entry offers, given its server's list. */
export function mcpToolsFromList(request: McpToolRequest, list: readonly McpToolInfo[], warnings: string[]): McpTool[] {
  const byName = new Map(list.map((tool) => [tool.name, tool]));
  if (request.allowedTools) {
    const missing = request.allowedTools.filter((name) => !byName.has(name));
    if (missing.length > 0) warnings.push(`tools[${request.index}].allowed_tools: the MCP server ${request.server} has no tool ${missing.join(', ')}`);
  }
  const offered = request.allowedTools ? request.allowedTools.filter((name) => byName.has(name)) : list.map((tool) => tool.name);
  return [...mcpModelToolNames(request.prefix, offered)].map(([modelName, toolName]): McpTool => {
    const info = byName.get(toolName) as McpToolInfo;
    return {
      kind: 'mcp',
      modelName,
      description: info.description ?? `The tool ${toolName} of the MCP server ${request.server}.`,
      inputSchema: inputSchemaOf(info),
      ...(request.cacheControl ? { cacheControl: request.cacheControl } : {}),
      settings: { server: request.server, toolName },
    };
  });
}

/** Lists the MCP servers' tools (through the runtime's cache) and returns every gateway tool of the request. */
export async function resolveGatewayTools(validated: ValidatedGatewayTools, runtime: Pick<ServerToolRuntime, 'mcp'>): Promise<ResolvedGatewayTools> {
  const warnings: string[] = [];
  const lists = await Promise.all(validated.mcp.map((request) => runtime.mcp.listTools(request.server)));
  const mcpTools = validated.mcp.flatMap((request, position) => {
    const list = lists[position];
    if (!list) {
      warnings.push(`tools[${request.index}]: the MCP server ${request.server} could not be reached; its tools are not offered`);
      return [];
    }
    return mcpToolsFromList(request, list, warnings);
  });
  return { tools: [...validated.builtIn, ...mcpTools], warnings };
}
