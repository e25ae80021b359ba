/**
 * The gateway's tools as data: for each kind, how a request names it, the model-facing name, description and
 * input schema the model sees, and the function that runs a call. MCP tools take their name, description and
 * schema from their server (see resolve-gateway-tools.ts). `executeGatewayTool` is the one entry point the
 * tool loop calls to run a call: it never throws, and a tool that throws becomes an error result.
 */
import type { CustomTool } from '#src/api-types.ts';
import type { GatewayToolCall, GatewayToolKind, GatewayToolOutcome, ResolvedGatewayTool, ToolExecutionContext, ToolInputSchema } from './server-tool-types.ts';
import { DATETIME_DESCRIPTION, DATETIME_INPUT_SCHEMA, runDatetime } from './datetime/datetime-tool.ts';
import { WEB_FETCH_DESCRIPTION, WEB_FETCH_INPUT_SCHEMA, runWebFetch } from './web-fetch/web-fetch-tool.ts';
import { WEB_SEARCH_DESCRIPTION, WEB_SEARCH_INPUT_SCHEMA, runWebSearch } from './web-search/web-search-tool.ts';
import { runMcpTool } from './mcp/mcp-tool.ts';
import { errorOutcome } from './tool-outcome.ts';

/** How one built-in tool looks to a request and to the model. */
export interface BuiltInToolDefinition {
  requestType: `gateway:${GatewayToolKind}`;
  defaultName: string;
  description: string;
  inputSchema: ToolInputSchema;
}

/** The tools whose definition the gateway owns (MCP tools' come from their servers). */
export const BUILT_IN_TOOLS = {
  web_search: { requestType: 'gateway:web_search', defaultName: 'web_search', description: WEB_SEARCH_DESCRIPTION, inputSchema: WEB_SEARCH_INPUT_SCHEMA },
  web_fetch: { requestType: 'gateway:web_fetch', defaultName: 'web_fetch', description: WEB_FETCH_DESCRIPTION, inputSchema: WEB_FETCH_INPUT_SCHEMA },
  datetime: { requestType: 'gateway:datetime', defaultName: 'datetime', description: DATETIME_DESCRIPTION, inputSchema: DATETIME_INPUT_SCHEMA },
} as const satisfies Record<Exclude<GatewayToolKind, 'mcp'>, BuiltInToolDefinition>;

/** Every `type` a request may give a gateway tool. */
export const GATEWAY_TOOL_TYPES = ['gateway:web_search', 'gateway:web_fetch', 'gateway:datetime', 'gateway:mcp'] as const;

/** The function tool the model is offered for a gateway tool (the loop sends it upstream like a client tool). */
export function modelToolDefinition(tool: ResolvedGatewayTool): CustomTool {
  return {
    name: tool.modelName,
    description: tool.description,
    input_schema: tool.inputSchema as CustomTool['input_schema'],
    ...(tool.cacheControl ? { cache_control: tool.cacheControl } : {}),
  };
}

async function dispatch(call: GatewayToolCall, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  const { tool } = call;
  switch (tool.kind) {
    case 'web_search':
      return runWebSearch({ ...call, tool }, context);
    case 'web_fetch':
      return runWebFetch({ ...call, tool }, context);
    case 'datetime':
      return runDatetime({ ...call, tool }, context);
    case 'mcp':
      return runMcpTool({ ...call, tool }, context);
    default: {
      const unreachable: never = tool;
      throw new Error(`unknown gateway tool ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Runs one call. Never throws: a refusal, a failure or a tool that throws is an `isError` outcome. */
export async function executeGatewayTool(call: GatewayToolCall, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  if (context.signal.aborted) return errorOutcome(call, 'unavailable', 'the request was cancelled before the tool ran');
  try {
    return await dispatch(call, context);
  } catch (error) {
    context.logger.error('gateway tool failed unexpectedly', { tool: call.tool.modelName, kind: call.tool.kind, error });
    return errorOutcome(call, 'unavailable', 'the tool failed unexpectedly');
  }
}

/** Runs the calls of one step concurrently; outcomes come back in the calls' order. */
export function executeGatewayTools(calls: readonly GatewayToolCall[], context: ToolExecutionContext): Promise<GatewayToolOutcome[]> {
  return Promise.all(calls.map((call) => executeGatewayTool(call, context)));
}
