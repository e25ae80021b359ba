/**
 * `POST /messages/count_tokens` as a service: counts on the first endpoint the routing plan would use,
 * falling through the plan on retryable failures exactly like a message would.
 */
import type { CountTokensRequest, MessageRequest } from '#src/api-types.ts';
import { runAttempts } from '#src/messages/run-attempts.ts';
import { forwardHeaders, type MessagesDeps } from '#src/messages/create-message.ts';
import type { PlanRequestContext, PreparedAttempt } from '#src/messages/prepared-plan.ts';

/** Counts the input tokens of a request on the model it names. */
export async function countTokens(deps: MessagesDeps, request: CountTokensRequest, context: PlanRequestContext, signal: AbortSignal): Promise<number> {
  // The planner takes a message request; max_tokens plays no part in routing.
  const plan = await deps.plan({ max_tokens: 1, ...request } as MessageRequest, context);
  const run = await runAttempts<PreparedAttempt, number>({
    attempts: plan.attempts,
    identify: (attempt) => attempt,
    signal,
    execute: async (attempt) =>
      deps.adapterFor(attempt.family).countTokens({
        request,
        provider: attempt.providerSlug,
        family: attempt.family,
        upstreamModel: attempt.upstreamModel,
        ...(await attempt.resolveTarget()),
        forwardHeaders: forwardHeaders(context.headers),
        ...(attempt.providerHeaders ? { providerHeaders: attempt.providerHeaders } : {}),
        signal,
      }),
  });
  return run.result;
}
