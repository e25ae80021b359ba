/**
 * MCP servers' tools as gateway tools: their model-facing names (`<prefix>__<tool>`, within the 64-character
 * `^[a-zA-Z0-9_-]+$` rule of Anthropic and OpenAI), and one call through the runtime's MCP connections. The
 * client sees the MCP connector's `mcp_tool_result`; a tool error, a JSON-RPC error or a server that is down
 * is an error result, never an exception.
 */
import { createHash } from 'node:crypto';
import type { McpToolResultBlock } from '#src/api-types.ts';
import type { GatewayToolCall, GatewayToolOutcome, McpTool, ToolExecutionContext } from '../server-tool-types.ts';
import { errorOutcome, textContent, usageOfOneCall } from '../tool-outcome.ts';
import type { McpContentItem } from './mcp-connections.ts';

/** The longest tool name Anthropic and OpenAI accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** The default prefix of a server's model-facing tool names. */
export function defaultMcpPrefix(server: string): string {
  return `mcp__${server}`;
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/**
 * Model-facing names for a server's tools, in order: `<prefix>__<tool>` with characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`; a name too long, or equal to an earlier one after replacement, is cut and
 * given a hash of the tool's own name, so every name is unique, stable and at most 64 characters.
 */
export function mcpModelToolNames(prefix: string, toolNames: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const toolName of toolNames) {
    let name = `${prefix}__${toolName.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
    if (name.length > MAX_TOOL_NAME_LENGTH || names.has(name)) name = `${name.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${shortHash(toolName)}`;
    names.set(name, toolName);
  }
  return names;
}

function itemText(item: McpContentItem): string {
  switch (item.type) {
    case 'text':
      return item.text ?? '';
    case 'resource':
      return item.resource?.text ?? `[resource ${item.resource?.uri ?? ''}]`.trim();
    case 'resource_link':
      return `[resource link ${item.uri ?? ''}]`;
    default:
      // Images and audio cannot travel in every vendor's tool results; the model learns they were there.
      return `[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''} omitted]`;
  }
}

/**
 * The texts of an MCP tool result, with structured content as JSON when there is no text, cut once their total
 * length passes `maxChars` (a server's answer must not flood the model's context).
 */
export function mcpResultTexts(content: readonly McpContentItem[], structuredContent: unknown, maxChars = Number.POSITIVE_INFINITY): string[] {
  const texts = content.map(itemText).filter((text) => text !== '');
  if (texts.length === 0 && structuredContent !== undefined) texts.push(JSON.stringify(structuredContent));
  if (texts.length === 0) return ['(no output)'];
  const kept: string[] = [];
  let left = maxChars;
  for (const text of texts) {
    if (text.length > left) {
      kept.push(`${text.slice(0, left)}\n\n[Output truncated at ${maxChars} characters.]`);
      break;
    }
    kept.push(text);
    left -= text.length;
  }
  return kept;
}

/** Runs one call of an MCP tool. */
export async function runMcpTool(call: GatewayToolCall<McpTool>, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  const { server, toolName } = call.tool.settings;
  const input = call.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return errorOutcome(call, 'invalid_tool_input', 'the input must be an object');
  const result = await context.runtime.mcp.callTool(server, toolName, input as Record<string, unknown>, context.signal);
  if (!result.ok) return errorOutcome(call, 'unavailable', `the MCP server ${server} failed: ${result.message}`);
  const maxChars = context.config.mcpServers.get(server)?.maxOutputChars;
  const texts = mcpResultTexts(result.content, result.structuredContent, maxChars);
  const modelText = texts.join('\n\n');
  const clientResult: McpToolResultBlock = { type: 'mcp_tool_result', tool_use_id: call.id, is_error: result.isError, content: texts.map((text) => ({ type: 'text', text })) };
  return { toolUseId: call.id, isError: result.isError, modelContent: textContent(modelText), modelText, clientResult, usage: usageOfOneCall('mcp') };
}
