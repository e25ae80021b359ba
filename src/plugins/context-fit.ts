/**
 * Whether a prompt fits one endpoint's context length, decided per attempt (a fallback may have another
 * length): the rule every request follows, and the `context-compression` plugin's way out. Pure.
 *
 * - Unknown context length: the prompt is sent as it is (nothing says it does not fit).
 * - Without compression: the prompt is too long when its estimate exceeds the context length; room for the
 *   answer is not demanded, because the estimate is rough and a false refusal would be worse than letting
 *   the vendor judge.
 * - With compression: the prompt must leave room for the answer (the `max_tokens` sent, at most half the
 *   context).
 *   When it does not, messages are removed middle-out down to that budget; when even the fewest messages
 *   exceed the context length itself, the prompt is too long.
 * @see ContextCompressionPlugin in openapi/components/schemas/plugins.yaml
 */
import type { MessageRequest } from '#src/api-types.ts';
import { estimateContextTokens } from '#src/request/estimate-input-tokens.ts';
import { compressMiddleOut } from '#src/plugins/middle-out.ts';

/** How a prompt meets one context length. */
export type ContextFit =
  | { kind: 'fits'; request: MessageRequest; estimatedTokens: number | null; messagesRemoved: 0 }
  | { kind: 'compressed'; request: MessageRequest; estimatedTokens: number; messagesRemoved: number }
  | { kind: 'too-long'; estimatedTokens: number; messagesRemoved: number };

/** What the rule reads. */
export interface ContextFitInput {
  request: MessageRequest;
  /** The endpoint's context length in tokens; null when unknown. */
  contextLength: number | null;
  /** Whether the `context-compression` plugin is enabled. */
  compress: boolean;
  /** The request's estimate when already known (the same request is planned once and tried per attempt). */
  estimatedTokens?: number;
  /**
   * The `max_tokens` the endpoint is sent, when not the request's: a translated vendor's is lowered to its
   * output limit, and room for more than that would remove messages the answer never needed.
   */
  maxTokens?: number;
}

/** The most tokens a compressed prompt may take: the context less room for the answer (at most half of it). */
export function promptBudget(contextLength: number, maxTokens: number): number {
  return contextLength - Math.min(maxTokens, Math.floor(contextLength / 2));
}

/** Applies the rule to one request and one context length. */
export function fitToContext(input: ContextFitInput): ContextFit {
  const { request, contextLength } = input;
  if (contextLength === null) return { kind: 'fits', request, estimatedTokens: input.estimatedTokens ?? null, messagesRemoved: 0 };
  const estimatedTokens = input.estimatedTokens ?? estimateContextTokens(request);
  if (!input.compress) {
    return estimatedTokens > contextLength ? { kind: 'too-long', estimatedTokens, messagesRemoved: 0 } : { kind: 'fits', request, estimatedTokens, messagesRemoved: 0 };
  }
  const budget = promptBudget(contextLength, input.maxTokens ?? request.max_tokens);
  if (estimatedTokens <= budget) return { kind: 'fits', request, estimatedTokens, messagesRemoved: 0 };
  const compressed = compressMiddleOut(request, budget);
  if (compressed.removed === 0) {
    return estimatedTokens > contextLength ? { kind: 'too-long', estimatedTokens, messagesRemoved: 0 } : { kind: 'fits', request, estimatedTokens, messagesRemoved: 0 };
  }
  const smaller: MessageRequest = { ...request, messages: compressed.messages };
  const tokens = estimateContextTokens(smaller);
  if (tokens > contextLength) return { kind: 'too-long', estimatedTokens: tokens, messagesRemoved: compressed.removed };
  return { kind: 'compressed', request: smaller, estimatedTokens: tokens, messagesRemoved: compressed.removed };
}
