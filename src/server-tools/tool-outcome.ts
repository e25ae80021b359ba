/**
 * Building blocks of a tool call's outcome shared by every gateway tool: the usage counter each kind adds to
 * `usage.server_tool_use`, the error outcome in each kind's client shape, the client's use block, and the
 * model's `tool_result` block.
 */
import type { McpToolUseBlock, ServerToolResultBlock, ServerToolUseBlock, ToolResultBlockParam } from '#src/api-types.ts';
import type { GatewayToolCall, GatewayToolKind, GatewayToolOutcome, ModelToolResultContent, ServerToolUsage } from './server-tool-types.ts';

const USAGE_FIELD = {
  web_search: 'web_search_requests',
  web_fetch: 'web_fetch_requests',
  datetime: 'datetime_requests',
  mcp: 'mcp_requests',
} as const satisfies Record<GatewayToolKind, keyof ServerToolUsage>;

/** One call of a tool of this kind, as `usage.server_tool_use` counts it. */
export function usageOfOneCall(kind: GatewayToolKind): ServerToolUsage {
  return { [USAGE_FIELD[kind]]: 1 };
}

/** Adds two `usage.server_tool_use` objects field by field (for summing the steps of a loop). */
export function addServerToolUsage(a: ServerToolUsage | null | undefined, b: ServerToolUsage | null | undefined): ServerToolUsage {
  const sum: Record<string, number> = {};
  for (const usage of [a, b]) {
    for (const [field, value] of Object.entries(usage ?? {})) if (typeof value === 'number') sum[field] = (sum[field] ?? 0) + value;
  }
  return sum as ServerToolUsage;
}

/** A model-facing content list of one text block. */
export function textContent(text: string): ModelToolResultContent {
  return [{ type: 'text', text }];
}

/** The use block the client sees for a call: `mcp_tool_use` for MCP tools, `server_tool_use` otherwise. */
export function clientToolUseBlock(call: GatewayToolCall): ServerToolUseBlock | McpToolUseBlock {
  const input = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? (call.input as Record<string, never>) : {};
  if (call.tool.kind === 'mcp') return { type: 'mcp_tool_use', id: call.id, name: call.tool.settings.toolName, server_name: call.tool.settings.server, input };
  return { type: 'server_tool_use', id: call.id, name: call.tool.modelName, input };
}

/** The error result of a call in its kind's client shape, with the reason for the model. */
export function errorOutcome(call: GatewayToolCall, errorCode: string, message: string): GatewayToolOutcome {
  const modelText = `Error (${errorCode}): ${message}`;
  let clientResult: ServerToolResultBlock;
  switch (call.tool.kind) {
    case 'web_search':
      clientResult = { type: 'web_search_tool_result', tool_use_id: call.id, content: { type: 'web_search_tool_result_error', error_code: errorCode } };
      break;
    case 'web_fetch':
      clientResult = { type: 'web_fetch_tool_result', tool_use_id: call.id, content: { type: 'web_fetch_tool_result_error', error_code: errorCode } };
      break;
    case 'datetime':
      clientResult = { type: 'datetime_tool_result', tool_use_id: call.id, content: { type: 'datetime_tool_result_error', error_code: errorCode, message } };
      break;
    case 'mcp':
      clientResult = { type: 'mcp_tool_result', tool_use_id: call.id, is_error: true, content: [{ type: 'text', text: message }] };
      break;
    default: {
      const unreachable: never = call.tool;
      throw new Error(`unknown gateway tool ${JSON.stringify(unreachable)}`);
    }
  }
  return { toolUseId: call.id, isError: true, modelContent: textContent(modelText), modelText, clientResult, usage: usageOfOneCall(call.tool.kind) };
}

/**
 * The call's `tool_result` block for the model's next turn. Anthropic-format upstreams take the search
 * results as `search_result` blocks (so the model can cite them); other vendors take the plain text.
 */
export function modelToolResultBlock(outcome: GatewayToolOutcome, options: { searchResultBlocks: boolean }): ToolResultBlockParam {
  const content = options.searchResultBlocks ? outcome.modelContent : outcome.modelText;
  return { type: 'tool_result', tool_use_id: outcome.toolUseId, content: content as ToolResultBlockParam['content'], ...(outcome.isError ? { is_error: true } : {}) };
}
