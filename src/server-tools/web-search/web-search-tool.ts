/**
 * `gateway:web_search`: searches the configured backend and gives the model the results. Anthropic-format
 * upstreams read them as `search_result` blocks with citations enabled (the model's text then cites them);
 * other vendors read the same results as text. The client sees Anthropic's `web_search_tool_result`.
 */
import type { SearchResultBlockParam, WebSearchToolResultBlock } from '#src/api-types.ts';
import type { GatewayToolCall, GatewayToolOutcome, ModelToolResultContent, ToolExecutionContext, WebSearchTool } from '../server-tool-types.ts';
import type { WebSearchConfig } from '../server-tools-config.ts';
import { errorOutcome, usageOfOneCall } from '../tool-outcome.ts';
import { searchBrave } from './brave-backend.ts';
import { searchSearxng } from './searxng-backend.ts';
import { toOpaque } from './opaque-content.ts';
import { hitsWithinDomains, scopedQuery } from './anthropic-web-search.ts';
import type { SearchAnswer, SearchHit } from './search-backend.ts';
import type { SearchLocation } from './search-location.ts';
import { backendScrubber, backendSecrets, type BackendScrubber } from '../backend-secrets.ts';
import { shownUrl } from '../backend-url.ts';

/** What the model reads about the tool. */
export const WEB_SEARCH_DESCRIPTION =
  'Searches the web and returns the most relevant results (title, URL, snippet, page age). Use it for current events, ' +
  'facts you are unsure of, or anything after your training data. Cite the results you use.';

/** The input the model sends. */
export const WEB_SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: { query: { type: 'string', description: 'The search query.' } },
  required: ['query'],
  additionalProperties: false,
} as const;

/** The results as `search_result` blocks (Anthropic), citations enabled. */
export function searchResultBlocks(hits: readonly SearchHit[]): SearchResultBlockParam[] {
  return hits.map((hit) => ({
    type: 'search_result',
    source: hit.url,
    title: hit.title,
    content: [{ type: 'text', text: [hit.pageAge ? `Page age: ${hit.pageAge}` : undefined, hit.snippet || '(no snippet)'].filter(Boolean).join('\n') }],
    citations: { enabled: true },
  }));
}

/** The results as text, numbered, for vendors without `search_result` blocks. */
export function searchResultsText(query: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No results for "${query}".`;
  const entries = hits.map((hit, index) =>
    [`[${index + 1}] ${hit.title}`, `URL: ${hit.url}`, hit.pageAge ? `Page age: ${hit.pageAge}` : undefined, hit.snippet || undefined].filter(Boolean).join('\n'),
  );
  return `Search results for "${query}":\n\n${entries.join('\n\n')}`;
}

// One scrubber per configuration (built once, the configuration lives as long as the gateway).
const scrubbers = new WeakMap<WebSearchConfig, BackendScrubber>();

function scrubberOf(config: WebSearchConfig): BackendScrubber {
  let scrub = scrubbers.get(config);
  if (!scrub) scrubbers.set(config, (scrub = backendScrubber(backendSecrets({ headers: config.headers, apiKey: config.apiKey, url: config.baseUrl }))));
  return scrub;
}

/**
 * The backend's answer without the gateway's key and header secrets: its results (a page that shows the
 * request's headers) and its error details (Brave's `detail`, SearXNG's engine messages) reach the model, the
 * client, the record and the logs.
 */
async function search(query: string, count: number, location: SearchLocation | undefined, config: WebSearchConfig, context: ToolExecutionContext): Promise<SearchAnswer> {
  return scrubberOf(config)(await searchBackend(query, count, location, config, context));
}

function searchBackend(query: string, count: number, location: SearchLocation | undefined, config: WebSearchConfig, context: ToolExecutionContext): Promise<SearchAnswer> {
  const options = { query, count, location, config, dispatcher: context.runtime.searchDispatcher(), signal: context.signal };
  switch (config.backend) {
    case 'searxng':
      return searchSearxng(options);
    case 'brave':
      return searchBrave(options);
    default: {
      const unreachable: never = config.backend;
      throw new Error(`unknown search backend ${String(unreachable)}`);
    }
  }
}

/** Runs one call: never throws; a backend failure is an error result with Anthropic's error code. */
export async function runWebSearch(call: GatewayToolCall<WebSearchTool>, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  const config = context.config.webSearch;
  if (!config) return errorOutcome(call, 'unavailable', 'no search backend is configured on this gateway');
  const input = call.input as { query?: unknown } | null;
  if (typeof input !== 'object' || input === null || typeof input.query !== 'string' || input.query.trim() === '') {
    return errorOutcome(call, 'invalid_tool_input', 'the input must be {"query": "<search terms>"}');
  }
  const query = input.query.trim();
  if (query.length > config.maxQueryLength) return errorOutcome(call, 'query_too_long', `the query is longer than ${config.maxQueryLength} characters`);
  const { maxResults, allowedDomains = null, blockedDomains = [], userLocation } = call.tool.settings;
  const answer = await search(scopedQuery(query, allowedDomains), maxResults, userLocation, config, context);
  if (!answer.ok) {
    // The backend's URL with its tokens as `***`, for the operator to tell which one failed.
    context.logger.warn('web_search failed', { backend: config.backend, url: shownUrl(config.baseUrl), error_code: answer.errorCode, reason: answer.message });
    return errorOutcome(call, answer.errorCode, answer.message);
  }
  const hits = hitsWithinDomains(answer.hits, allowedDomains, blockedDomains);
  const modelText = searchResultsText(query, hits);
  const modelContent: ModelToolResultContent = hits.length > 0 ? searchResultBlocks(hits) : [{ type: 'text', text: modelText }];
  const clientResult: WebSearchToolResultBlock = {
    type: 'web_search_tool_result',
    tool_use_id: call.id,
    content: hits.map((hit) => ({
      type: 'web_search_result',
      url: hit.url,
      title: hit.title,
      page_age: hit.pageAge,
      encrypted_content: toOpaque({ snippet: hit.snippet }),
    })),
  };
  return { toolUseId: call.id, isError: false, modelContent, modelText, clientResult, usage: usageOfOneCall('web_search') };
}
