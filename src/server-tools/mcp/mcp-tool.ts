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
 * A shortened name: the whole prefix (so the name stays in its server's namespace, which the overlap rule
 * keeps apart from every other name), the start of the tool's name and a hash; a further hash when that name
 * is already taken, so it can never replace another tool.
 */
function shortenedName(prefix: string, cleaned: string, toolName: string, taken: (name: string) => boolean): string {
  // Prefixes are at most 40 characters (the entry's name pattern; mcp__ and a 32-character server name by
  // default), which leaves the tool's name at least 13.
  const room = Math.max(1, MAX_TOOL_NAME_LENGTH - prefix.length - '__'.length - '_'.length - 8);
  for (let attempt = 0; ; attempt++) {
    const name = `${prefix}__${cleaned.slice(0, room)}_${shortHash(attempt === 0 ? toolName : `${toolName}\u0000${attempt}`)}`;
    if (!taken(name)) return name;
  }
}

/**
 * Model-facing names for a server's tools, in order: `<prefix>__<tool>` with characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`; a name too long, or equal to an earlier one after replacement, is shortened
 * with a hash of the tool's own name, never to another tool's name, so every name is unique, stable, at most
 * 64 characters and starts with `<prefix>__`.
 */
export function mcpModelToolNames(prefix: string, toolNames: readonly string[]): Map<string, string> {
  const cleaned = toolNames.map((toolName) => toolName.replace(/[^a-zA-Z0-9_-]/g, '_'));
  // A tool's own full name outranks a shortened one, whatever their order in the server's list.
  const plain = new Set(cleaned.map((name) => `${prefix}__${name}`).filter((name) => name.length <= MAX_TOOL_NAME_LENGTH));
  const names = new Map<string, string>();
  toolNames.forEach((toolName, index) => {
    const own = `${prefix}__${cleaned[index]}`;
    const name = own.length > MAX_TOOL_NAME_LENGTH || names.has(own) ? shortenedName(prefix, cleaned[index] ?? '', toolName, (candidate) => names.has(candidate) || plain.has(candidate)) : own;
    names.set(name, toolName);
  });
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
