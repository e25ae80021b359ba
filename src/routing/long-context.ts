/**
 * Anthropic's 1M-token context window. A client opts in with the `context-1m-2025-08-07` beta (Claude Code
 * does for its `[1m]` models), which reaches Anthropic-format upstreams in the forwarded `anthropic-beta`
 * header; the catalog marks the endpoints that take it by their long-context prices (`pricing.long_context`,
 * billed above 200K prompt tokens). On such an attempt the prompt is held to the long window rather than to
 * the model's default context length, so the gateway does not refuse a prompt Anthropic would serve.
 * @see https://platform.claude.com/docs/en/build-with-claude/context-windows
 */
import type { CatalogEndpoint } from '#src/catalog/catalog-types.ts';

/** The beta flag that opens the long context window. */
export const LONG_CONTEXT_BETA = 'context-1m-2025-08-07';

/** The size of the long context window, in tokens. */
export const LONG_CONTEXT_TOKENS = 1_000_000;

/** Whether the client's `anthropic-beta` header (comma-separated flags) opts into the long context window. */
export function requestsLongContext(forwardHeaders: Readonly<Record<string, string>> | undefined): boolean {
  const beta = forwardHeaders?.['anthropic-beta'];
  return beta !== undefined && beta.split(',').some((flag) => flag.trim() === LONG_CONTEXT_BETA);
}

/**
 * The context length an attempt on `endpoint` holds the prompt to: the long window when the client opted in
 * and the endpoint is an Anthropic-format one priced for it (only those upstreams receive the beta header),
 * else the endpoint's own (null when unknown).
 */
export function attemptContextLength(endpoint: Pick<CatalogEndpoint, 'contextLength' | 'provider' | 'pricing'>, longContext: boolean): number | null {
  const own = endpoint.contextLength;
  if (own === null || !longContext || endpoint.provider.family !== 'anthropic' || !endpoint.pricing.long_context) return own;
  return Math.max(own, LONG_CONTEXT_TOKENS);
}
