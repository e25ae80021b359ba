/**
 * A conversation passed back by the client holds the gateway's tool calls as the client saw them: inside an
 * assistant turn, `server_tool_use`/`mcp_tool_use` blocks followed by their result blocks, and text citing
 * the gateway's search results. No upstream can read those (Anthropic would try to decrypt the opaque fields;
 * other vendors know no server tools), so before a step is sent they become what the model originally saw: an
 * assistant turn ending in `tool_use` blocks, a user turn of `tool_result` blocks, and the assistant's text
 * after it in a new assistant turn. Blocks are recognised by the gateway's ids; Anthropic's own server tool
 * blocks stay as they are.
 */
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from '#src/api-types.ts';
import { datetimeModelText } from './datetime/datetime-tool.ts';
import { isGatewayToolUseId } from './gateway-tool-use-id.ts';
import { isGatewayCitation } from './map-search-result-citation.ts';
import { defaultMcpPrefix, mcpModelToolNames } from './mcp/mcp-tool.ts';
import { webFetchModelText } from './web-fetch/web-fetch-tool.ts';
import { searchResultBlocks, searchResultsText } from './web-search/web-search-tool.ts';
import { fromOpaque } from './web-search/opaque-content.ts';
import type { SearchHit } from './web-search/search-backend.ts';

type Block = Record<string, unknown> & { type: string };

/** Options of the conversion. */
export interface ModelTurnOptions {
  /** Give search results back as `search_result` blocks (Anthropic-format upstreams), else as text. */
  searchResultBlocks: boolean;
  /** The request's prefix per MCP server (default `mcp__<server>`), so names match the tools offered now. */
  mcpPrefixes?: ReadonlyMap<string, string>;
}

const USE_TYPES = new Set(['server_tool_use', 'mcp_tool_use']);

function isGatewayUse(block: Block): boolean {
  return USE_TYPES.has(block.type) && isGatewayToolUseId(block.id);
}

function isGatewayResult(block: Block): boolean {
  return block.type.endsWith('_tool_result') && isGatewayToolUseId(block.tool_use_id);
}

function modelToolName(block: Block, options: ModelTurnOptions): string {
  if (block.type !== 'mcp_tool_use') return String(block.name);
  const server = String(block.server_name);
  const prefix = options.mcpPrefixes?.get(server) ?? defaultMcpPrefix(server);
  return [...mcpModelToolNames(prefix, [String(block.name)]).keys()][0] ?? String(block.name);
}

function errorText(content: Record<string, unknown>): string {
  const message = typeof content.message === 'string' ? `: ${content.message}` : '';
  return `Error (${String(content.error_code)})${message}`;
}

/** The tool result the model saw for one of the gateway's result blocks; `input` is its use block's input. */
export function modelToolResultFromBlock(block: Block, options: ModelTurnOptions, input?: unknown): ToolResultBlockParam {
  const base = { type: 'tool_result' as const, tool_use_id: String(block.tool_use_id) };
  const content = block.content as unknown;
  if (block.type === 'mcp_tool_result') {
    const text = typeof content === 'string' ? content : (content as { text?: unknown }[]).map((item) => String(item.text ?? '')).join('\n\n');
    return { ...base, content: text, ...(block.is_error === true ? { is_error: true } : {}) };
  }
  if (typeof content === 'object' && content !== null && !Array.isArray(content) && 'error_code' in content) {
    return { ...base, content: errorText(content as Record<string, unknown>), is_error: true };
  }
  switch (block.type) {
    case 'web_search_tool_result': {
      const hits: SearchHit[] = (content as Record<string, unknown>[]).map((result) => ({
        url: String(result.url),
        title: String(result.title),
        pageAge: typeof result.page_age === 'string' ? result.page_age : null,
        snippet: String((fromOpaque(result.encrypted_content) as { snippet?: unknown } | undefined)?.snippet ?? ''),
      }));
      if (options.searchResultBlocks && hits.length > 0) return { ...base, content: searchResultBlocks(hits) as ToolResultBlockParam['content'] };
      const query = (input as { query?: unknown } | undefined)?.query;
      return { ...base, content: searchResultsText(typeof query === 'string' ? query.trim() : '', hits) };
    }
    case 'web_fetch_tool_result': {
      const result = content as { url?: unknown; content?: { title?: unknown; source?: { data?: unknown } } };
      const title = typeof result.content?.title === 'string' ? result.content.title : null;
      return { ...base, content: webFetchModelText(title, String(result.url), String(result.content?.source?.data ?? '')) };
    }
    case 'datetime_tool_result': {
      const reading = content as { datetime?: unknown; timezone?: unknown; utc_offset?: unknown; day_of_week?: unknown };
      return { ...base, content: datetimeModelText({ datetime: String(reading.datetime), timezone: String(reading.timezone), utcOffset: String(reading.utc_offset), dayOfWeek: String(reading.day_of_week ?? '') }) };
    }
    default:
      return { ...base, content: JSON.stringify(content) };
  }
}

/** A text block without its citations of the gateway's search results (Anthropic could not read them); any other block as it is. */
export function withoutGatewayCitations(block: Block): Block {
  if (block.type !== 'text' || !Array.isArray(block.citations)) return block;
  const citations = (block.citations as unknown[]).filter((citation) => !isGatewayCitation(citation));
  if (citations.length === block.citations.length) return block;
  const { citations: _dropped, ...rest } = block;
  return (citations.length > 0 ? { ...rest, citations } : rest) as Block;
}

/** One assistant message's content as assistant and user turns (just the message when it holds no gateway call). */
function splitAssistantMessage(content: Block[], options: ModelTurnOptions): MessageParam[] {
  const turns: MessageParam[] = [];
  let assistant: Block[] = [];
  let results: ToolResultBlockParam[] = [];
  const inputs = new Map<unknown, unknown>();
  const flush = () => {
    if (assistant.length > 0) turns.push({ role: 'assistant', content: assistant as ContentBlockParam[] });
    if (results.length > 0) turns.push({ role: 'user', content: results });
    assistant = [];
    results = [];
  };
  for (const block of content) {
    if (isGatewayUse(block)) {
      if (results.length > 0) flush();
      inputs.set(block.id, block.input);
      assistant.push({ type: 'tool_use', id: block.id, name: modelToolName(block, options), input: block.input ?? {} });
    } else if (isGatewayResult(block)) {
      results.push(modelToolResultFromBlock(block, options, inputs.get(block.tool_use_id)));
    } else {
      if (results.length > 0) flush();
      assistant.push(withoutGatewayCitations(block));
    }
  }
  flush();
  return turns;
}

/** The conversation with the gateway's tool blocks turned back into the tool turns the model saw. */
export function convertToModelToolTurns(messages: readonly MessageParam[], options: ModelTurnOptions): MessageParam[] {
  const converted: MessageParam[] = [];
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (message.role !== 'assistant' || !Array.isArray(content)) {
      const previous = converted.at(-1);
      // Results that ended an assistant message go in the same user turn as the user's next words.
      if (message.role === 'user' && previous?.role === 'user' && Array.isArray(previous.content)) {
        const next = typeof content === 'string' ? [{ type: 'text', text: content }] : (content as ContentBlockParam[]);
        converted[converted.length - 1] = { role: 'user', content: [...(previous.content as ContentBlockParam[]), ...(next as ContentBlockParam[])] };
      } else {
        converted.push(message);
      }
      continue;
    }
    const blocks = content as Block[];
    if (!blocks.some((block) => isGatewayUse(block) || isGatewayResult(block) || withoutGatewayCitations(block) !== block)) {
      converted.push(message);
      continue;
    }
    converted.push(...splitAssistantMessage(blocks, options));
  }
  return converted;
}
