/**
 * The output limit an endpoint is sent. Vendors refuse a `max_tokens` above their model's with a 400 (Anthropic:
 * `max_tokens: 128000 > 64000, which is the maximum allowed number of output tokens for …`; DeepSeek:
 * `Invalid max_tokens value`), so it is lowered to the endpoint's `max_output_tokens`; the thinking budget,
 * which Anthropic counts inside `max_tokens`, is lowered with it, and the context check leaves room for the
 * limit actually sent, not the client's. Clients ask more than a model writes when they do not know the model
 * id: Claude Code asks 32000 of every such model, the AI SDK's Anthropic provider 128000 of a `claude-` id it
 * does not know (every gateway slug, `anthropic/claude-sonnet-4.5` included). Pure.
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

/** The fields of a request the output limit reads. */
interface OutputFields {
  max_tokens?: number | undefined;
  thinking?: unknown;
}

/**
 * The request with `max_tokens` (and a thinking budget not below it) lowered to the endpoint's output limit,
 * and a warning per lowered value. The request itself when nothing is above the limit: the usual case.
 */
export function withinOutputLimit<R extends OutputFields>(request: R, outputLimit: number | null | undefined): { value: R; warnings: string[] } {
  const asked = request.max_tokens;
  if (asked === undefined || outputLimit === null || outputLimit === undefined || asked <= outputLimit) return { value: request, warnings: [] };
  const maxTokens = sentMaxTokens(asked, outputLimit);
  const warnings = [`max_tokens ${asked} lowered to ${maxTokens}: the endpoint's output limit`];
  const thinking = request.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (thinking?.type !== 'enabled' || typeof thinking.budget_tokens !== 'number') return { value: { ...request, max_tokens: maxTokens }, warnings };
  const budget = lowerThinkingBudget(thinking.budget_tokens, asked, maxTokens);
  if (budget === thinking.budget_tokens) return { value: { ...request, max_tokens: maxTokens }, warnings };
  warnings.push(`thinking.budget_tokens ${thinking.budget_tokens} lowered to ${budget} with max_tokens`);
  return { value: { ...request, max_tokens: maxTokens, thinking: { ...thinking, budget_tokens: budget } }, warnings };
}
