/**
 * The plain data that flows between the tool loop and the gateway's own tools: a tool as offered to the model
 * for one request, one call the model made, and what running it produced (the model's tool result, the
 * client's result block, usage counters). No closures: the loop may hold, log or replay any of it.
 */
import type {
  CacheControl,
  SearchResultBlockParam,
  ServerToolResultBlock,
  TextBlockParam,
  Usage,
} from '#src/api-types.ts';
import type { Logger } from '#src/logger.ts';
import type { ServerToolsConfig } from './server-tools-config.ts';
import type { ServerToolRuntime } from './server-tool-runtime.ts';
import type { SearchLocation } from './web-search/search-location.ts';

/** The kinds of gateway tool; a request names one as `gateway:<kind>`. */
export type GatewayToolKind = 'web_search' | 'web_fetch' | 'datetime' | 'mcp';

/** A JSON Schema object describing a tool's input, as the model sees it. */
export type ToolInputSchema = Readonly<Record<string, unknown>>;

interface OfferedTool {
  /** The model-facing name (`^[a-zA-Z0-9_-]{1,64}$`), unique among the request's tools. */
  modelName: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** The entry's `cache_control`, kept for the tool definition sent upstream. */
  cacheControl?: CacheControl;
}

/** `gateway:web_search` for one request. */
export interface WebSearchTool extends OfferedTool {
  kind: 'web_search';
  /**
   * `maxUses`, `allowedDomains`, `blockedDomains` and `userLocation` come from Anthropic's web search tool run
   * by the gateway (anthropic-web-search.ts): its searches per request, the domains its results may come from,
   * and the user's approximate location (mapped per backend: search-location.ts).
   */
  settings: { maxResults: number; maxUses?: number; allowedDomains?: readonly string[] | null; blockedDomains?: readonly string[]; userLocation?: SearchLocation };
}

/** `gateway:web_fetch` for one request. */
export interface WebFetchTool extends OfferedTool {
  kind: 'web_fetch';
  settings: { maxContentChars: number; allowedDomains: readonly string[] | null; blockedDomains: readonly string[] };
}

/** `gateway:datetime` for one request. */
export interface DatetimeTool extends OfferedTool {
  kind: 'datetime';
  settings: { defaultTimezone: string };
}

/** One tool of an MCP server, offered to the model as `<prefix>__<tool>`. */
export interface McpTool extends OfferedTool {
  kind: 'mcp';
  settings: { server: string; toolName: string };
}

/** A gateway tool as offered to the model for one request. */
export type ResolvedGatewayTool = WebSearchTool | WebFetchTool | DatetimeTool | McpTool;

/** One call of a gateway tool the model made: the tool, the call's id and the model's input. */
export interface GatewayToolCall<Tool extends ResolvedGatewayTool = ResolvedGatewayTool> {
  tool: Tool;
  /** The id the client sees on the use block and the result's `tool_use_id` (from `newGatewayToolUseId`). */
  id: string;
  input: unknown;
  /** The id the model gave its `tool_use`: what a thread the upstream holds knows the call by. */
  modelId?: string;
}

/** The per-tool call counters of `usage.server_tool_use`. */
export type ServerToolUsage = NonNullable<Usage['server_tool_use']>;

/** What the model reads as the call's `tool_result` content (Anthropic format). */
export type ModelToolResultContent = (TextBlockParam | SearchResultBlockParam)[];

/** What running one call produced. */
export interface GatewayToolOutcome {
  toolUseId: string;
  isError: boolean;
  /** The tool result for Anthropic-format upstreams (search results as `search_result` blocks, for citations). */
  modelContent: ModelToolResultContent;
  /** The same result as plain text, for vendors without `search_result` blocks. */
  modelText: string;
  /** The block the client sees after the use block. */
  clientResult: ServerToolResultBlock;
  /** Counters to add to `usage.server_tool_use`. */
  usage: ServerToolUsage;
}

/** What a running call may use: the request's abort signal (disconnect, time budget), configuration, logger. */
export interface ToolExecutionContext {
  signal: AbortSignal;
  config: ServerToolsConfig;
  logger: Logger;
  /** Long-lived state shared by calls: the guarded HTTP client, MCP connections, the clock. */
  runtime: ServerToolRuntime;
  /**
   * The URLs `web_fetch` may fetch, those the conversation holds (prior-context-urls.ts), in comparable form;
   * any other is `url_not_in_prior_context`. Empty when the step makes no fetch call.
   */
  priorUrls: ReadonlySet<string>;
}
