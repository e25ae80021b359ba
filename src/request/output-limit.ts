/**
 * The output limit a translated vendor is sent. Such vendors refuse a `max_tokens` above their model's (a
 * 400), so it is lowered to the endpoint's `max_output_tokens`; the thinking budget, which Anthropic counts
 * inside `max_tokens`, is lowered with it, and the context check leaves room for the limit actually sent,
 * not the client's (Claude Code asks 32000 of every model it does not know). Anthropic-format upstreams get
 * the client's values. Pure.
 * @see max_tokens in openapi/components/schemas/message-request.yaml
 */

/** The `max_tokens` sent to an endpoint whose output limit is `outputLimit` (null or absent when unknown). */
export function sentMaxTokens(maxTokens: number, outputLimit: number | null | undefined): number {
  return outputLimit !== null && outputLimit !== undefined && maxTokens > outputLimit ? outputLimit : maxTokens;
}

/**
 * A thinking budget under `max_tokens` lowered to `lowered`: kept when it is below the new limit (Anthropic's
 * own rule), else given the share of the output the client gave it, so the answer keeps its share too.
 */
export function lowerThinkingBudget(budget: number, maxTokens: number, lowered: number): number {
  if (budget < lowered) return budget;
  return Math.max(1, Math.min(lowered - 1, Math.floor((budget * lowered) / maxTokens)));
}
