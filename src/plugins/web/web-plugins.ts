/**
 * The `web` and `web-fetch` plugins: once per user prompt (not per step of an agent loop), before the model
 * is called, they run the gateway's own `web_search` or `web_fetch` tool (the same code, address policy and
 * limits as the tool loop's) on the user's new prompt and append what was found to that turn, introduced by a prompt that asks for citations as
 * markdown links. No tool loop is involved: the model never sees a tool.
 * @see WebPlugin, WebFetchPlugin in openapi/components/schemas/plugins.yaml
 */
import type { MessageRequest, WebFetchPlugin, WebFetchReport, WebPlugin, WebReport } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { BUILT_IN_TOOLS, executeGatewayTool } from '#src/server-tools/gateway-tool-registry.ts';
import { newGatewayToolUseId } from '#src/server-tools/gateway-tool-use-id.ts';
import type { ToolExecutionContext, WebFetchTool, WebSearchTool } from '#src/server-tools/server-tool-types.ts';
import type { ServerToolsConfig } from '#src/server-tools/server-tools-config.ts';
import { appendToUserTurn, fillPrompt, urlsInText, type UserTurn } from '#src/plugins/web/prompt-context.ts';

/** The default `search_prompt` of `web`. */
export const DEFAULT_SEARCH_PROMPT = 'A web search was conducted on {date}. Use the following results to answer, and cite the sources you use as markdown links to their URLs.';

/** The default `search_prompt` of `web-fetch`. */
export const DEFAULT_FETCH_PROMPT = 'The following web pages were fetched on {date}. Use them to answer, and cite the pages you use as markdown links to their URLs.';

/** The most URLs `web-fetch` fetches when the entry does not say. */
export const DEFAULT_FETCH_RESULTS = 3;

/** Throws a 400 when the gateway's configuration cannot serve the plugin entry. */
export function assertWebPluginsAvailable(config: ServerToolsConfig, web: WebPlugin | undefined, webFetch: WebFetchPlugin | undefined): void {
  if (web) {
    if (!config.webSearch) throw new BadRequestError('the web plugin is not available: this gateway has no search backend configured (server_tools.web_search)');
    if (web.max_results !== undefined && web.max_results > config.webSearch.maxResults) {
      throw new BadRequestError(`plugins: web.max_results must be at most ${config.webSearch.maxResults} on this gateway, got ${web.max_results}`);
    }
  }
  if (webFetch && !config.webFetch.enabled) throw new BadRequestError('the web-fetch plugin is not available: web fetch is disabled on this gateway (server_tools.web_fetch.enabled)');
}

function searchTool(maxResults: number): WebSearchTool {
  const definition = BUILT_IN_TOOLS.web_search;
  return { kind: 'web_search', modelName: definition.defaultName, description: definition.description, inputSchema: definition.inputSchema, settings: { maxResults } };
}

function fetchTool(maxContentChars: number): WebFetchTool {
  const definition = BUILT_IN_TOOLS.web_fetch;
  return {
    kind: 'web_fetch',
    modelName: definition.defaultName,
    description: definition.description,
    inputSchema: definition.inputSchema,
    settings: { maxContentChars, allowedDomains: null, blockedDomains: [] },
  };
}

/**
 * Searches for the new user prompt's text (as the client wrote it: `turn` is read before any plugin appended to
 * it) and appends the results to that turn.
 */
export async function addSearchResults(request: MessageRequest, turn: UserTurn | null, plugin: WebPlugin, context: ToolExecutionContext): Promise<{ request: MessageRequest; report: WebReport }> {
  const search = context.config.webSearch;
  if (!search || turn === null) return { request, report: { id: 'web', status: 'skipped', results: 0 } };
  const query = turn.text.slice(0, search.maxQueryLength);
  const tool = searchTool(plugin.max_results ?? search.defaultMaxResults);
  const outcome = await executeGatewayTool({ tool, id: newGatewayToolUseId(), input: { query } }, context);
  if (outcome.isError) return { request, report: { id: 'web', status: 'failed', results: 0, query, note: outcome.modelText } };
  const shown = (outcome.clientResult as { content?: unknown }).content;
  const results = Array.isArray(shown) ? shown.length : 0;
  const text = `${fillPrompt(plugin.search_prompt ?? DEFAULT_SEARCH_PROMPT, context.runtime.now())}\n\n${outcome.modelText}`;
  return { request: appendToUserTurn(request, turn.index, text), report: { id: 'web', status: 'added', results, query } };
}

/** Fetches the URLs written in the new user prompt (concurrently) and appends each page's text, or why it failed. */
export async function addFetchedPages(
  request: MessageRequest,
  turn: UserTurn | null,
  plugin: WebFetchPlugin,
  context: ToolExecutionContext,
): Promise<{ request: MessageRequest; report: WebFetchReport }> {
  const urls = turn === null ? [] : urlsInText(turn.text).slice(0, plugin.max_results ?? DEFAULT_FETCH_RESULTS);
  if (turn === null || urls.length === 0) return { request, report: { id: 'web-fetch', status: 'skipped', results: 0, urls: [] } };
  const tool = fetchTool(context.config.webFetch.maxContentChars);
  const outcomes = await Promise.all(urls.map((url) => executeGatewayTool({ tool, id: newGatewayToolUseId(), input: { url } }, context)));
  const pages = outcomes.map((outcome, index) => (outcome.isError ? `URL: ${urls[index]}\n${outcome.modelText}` : outcome.modelText));
  const text = `${fillPrompt(plugin.search_prompt ?? DEFAULT_FETCH_PROMPT, context.runtime.now())}\n\n${pages.join('\n\n---\n\n')}`;
  const results = outcomes.filter((outcome) => !outcome.isError).length;
  return { request: appendToUserTurn(request, turn.index, text), report: { id: 'web-fetch', status: 'added', results, urls } };
}
