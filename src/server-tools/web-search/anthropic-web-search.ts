/**
 * Anthropic's web search server tool (`web_search_20250305`, `web_search_20260209`, …) run by the gateway.
 * Anthropic-format upstreams run it themselves; a request whose plan holds a translated endpoint (OpenAI,
 * Gemini, Bedrock, the presets) has each such entry rewritten into the gateway's own `gateway:web_search`,
 * keeping its `name`, `max_uses`, `allowed_domains`, `blocked_domains` and `user_location`, so the tool loop
 * runs the searches on the configured backend and answers with the blocks Anthropic would (`server_tool_use`,
 * `web_search_tool_result`, `usage.server_tool_use.web_search_requests`). Pure functions.
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 */
import type { MessageRequest } from '#src/api-types.ts';
import type { SearchHit } from './search-backend.ts';

type ToolEntry = NonNullable<MessageRequest['tools']>[number];

/** Whether a tool entry is one of Anthropic's versioned web search tools. */
export function isAnthropicWebSearchEntry(tool: ToolEntry): boolean {
  const type = (tool as { type?: unknown }).type;
  return typeof type === 'string' && type.startsWith('web_search_');
}

/** Whether the request offers Anthropic's web search tool. */
export function hasAnthropicWebSearch(tools: MessageRequest['tools']): boolean {
  if (tools === undefined) return false;
  for (const tool of tools) if (isAnthropicWebSearchEntry(tool)) return true;
  return false;
}

/**
 * The field of a converted entry that keeps the client's original `web_search_*` entry: an Anthropic-format
 * attempt of the same plan is offered that entry as sent and runs the search itself (the per-attempt choice,
 * step-request.ts). Internal: a converted request never reaches the wire as it is.
 */
export const ANTHROPIC_ENTRY = 'anthropic_entry';

/**
 * The request's tools with every Anthropic web search entry as a `gateway:web_search` entry carrying the same
 * settings (read by `validateGatewayTools`: `user_location` included, mapped per backend) and the original
 * entry (`ANTHROPIC_ENTRY`); other entries are kept as they are.
 */
export function withAnthropicSearchAsGateway(tools: NonNullable<MessageRequest['tools']>): NonNullable<MessageRequest['tools']> {
  return tools.map((tool) => {
    if (!isAnthropicWebSearchEntry(tool)) return tool;
    const entry = tool as Record<string, unknown>;
    const converted: Record<string, unknown> = { type: 'gateway:web_search', name: typeof entry.name === 'string' ? entry.name : 'web_search' };
    for (const field of ['max_uses', 'allowed_domains', 'blocked_domains', 'user_location', 'cache_control']) if (entry[field] !== undefined && entry[field] !== null) converted[field] = entry[field];
    converted[ANTHROPIC_ENTRY] = tool;
    return converted as unknown as ToolEntry;
  });
}

/** The client's original Anthropic web search entry a converted entry keeps, or undefined for any other entry. */
export function anthropicEntryOf(tool: ToolEntry): ToolEntry | undefined {
  return (tool as Record<string, unknown>)[ANTHROPIC_ENTRY] as ToolEntry | undefined;
}

/** Whether a host is a domain of the list or one of its subdomains. */
function hostIn(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return null;
  }
}

/** The hits a tool's domain rules let through: only the allowed domains (when listed), never a blocked one. */
export function hitsWithinDomains(hits: readonly SearchHit[], allowed: readonly string[] | null, blocked: readonly string[]): SearchHit[] {
  if (allowed === null && blocked.length === 0) return hits as SearchHit[];
  return hits.filter((hit) => {
    const host = hostOf(hit.url);
    if (host === null) return false;
    if (allowed !== null && !hostIn(host, allowed)) return false;
    return !hostIn(host, blocked);
  });
}

/**
 * The query the backend is sent: with allowed domains, `site:` operators (which SearXNG's engines and Brave
 * read) so the results come from them rather than being filtered away afterwards.
 */
export function scopedQuery(query: string, allowed: readonly string[] | null): string {
  if (allowed === null || allowed.length === 0) return query;
  const sites = allowed.map((domain) => `site:${domain}`).join(' OR ');
  return `${query} ${allowed.length > 1 ? `(${sites})` : sites}`;
}
