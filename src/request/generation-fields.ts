/**
 * The request fields that only shape a generation (how much, how random, where to stop, on which tier): they
 * play no part in what the model reads, so a token count is sent none of them (Anthropic's count_tokens
 * refuses them) and a translated vendor's count is not refused for them.
 */
import type { CountTokensRequest } from '#src/api-types.ts';

/** Fields of a message request that a count has no use for. */
export const GENERATION_ONLY_FIELDS: ReadonlySet<string> = new Set(['max_tokens', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'metadata', 'service_tier']);

/** The request without its generation-only fields; the same object when it has none. */
export function withoutGenerationFields<R extends CountTokensRequest>(request: R): R {
  if (!Object.keys(request).some((name) => GENERATION_ONLY_FIELDS.has(name))) return request;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request)) if (!GENERATION_ONLY_FIELDS.has(name)) kept[name] = value;
  return kept as R;
}
