/**
 * Citations of the gateway's web search results. On Anthropic-format upstreams the model reads the results as
 * `search_result` blocks and cites them with `search_result_location`; the client, which sent a web search
 * tool and got `web_search_tool_result` blocks, expects Anthropic's `web_search_result_location` (url, title,
 * cited_text, encrypted_index), as the hosted web search gives. This maps one to the other, and recognises the
 * gateway's own citations when a later turn passes them back.
 */
import { fromOpaque, isGatewayOpaque, toOpaque } from './web-search/opaque-content.ts';

/** Anthropic's citation of a `search_result` block. */
export interface SearchResultLocationCitation {
  type: 'search_result_location';
  source: string;
  title: string | null;
  cited_text: string;
  search_result_index: number;
  start_block_index: number;
  end_block_index: number;
}

/** Anthropic's citation of a web search result. */
export interface WebSearchResultLocationCitation {
  type: 'web_search_result_location';
  url: string;
  title: string | null;
  cited_text: string;
  encrypted_index: string;
}

/** Whether a citation is a `search_result_location` (the only kind this module maps). */
export function isSearchResultLocation(citation: unknown): citation is SearchResultLocationCitation {
  const candidate = citation as Partial<SearchResultLocationCitation> | null;
  return typeof candidate === 'object' && candidate !== null && candidate.type === 'search_result_location' && typeof candidate.source === 'string';
}

/**
 * A `search_result_location` citing one of the gateway's search results, as the client's
 * `web_search_result_location`. `gatewaySources` holds the URLs the request's gateway searches returned, so a
 * citation of a `search_result` block the client sent itself is left alone (undefined).
 */
export function mapSearchResultCitation(citation: unknown, gatewaySources: ReadonlySet<string>): WebSearchResultLocationCitation | undefined {
  if (!isSearchResultLocation(citation) || !gatewaySources.has(citation.source)) return undefined;
  return {
    type: 'web_search_result_location',
    url: citation.source,
    title: citation.title,
    cited_text: citation.cited_text,
    encrypted_index: toOpaque({ search_result_index: citation.search_result_index, start_block_index: citation.start_block_index, end_block_index: citation.end_block_index }),
  };
}

/** Whether a citation passed back on a later turn is one the gateway made (upstreams cannot read those). */
export function isGatewayCitation(citation: unknown): boolean {
  const candidate = citation as { type?: unknown; encrypted_index?: unknown } | null;
  return typeof candidate === 'object' && candidate !== null && candidate.type === 'web_search_result_location' && isGatewayOpaque(candidate.encrypted_index) && fromOpaque(candidate.encrypted_index) !== undefined;
}
