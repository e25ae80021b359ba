/**
 * `POST /messages/count_tokens` as a service: counts on the first endpoint the routing plan would use,
 * falling through the plan on retryable failures exactly like a message would, with the same adapter call.
 */
import type { CountTokensRequest, MessageRequest } from '#src/api-types.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import type { MessagesDeps } from '#src/messages/create-message.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { runAttempts } from '#src/messages/run-attempts.ts';
import type { Attempt } from '#src/routing/attempt.ts';

/** Counts the input tokens of a request on the model it names. */
export async function countTokens(deps: MessagesDeps, request: CountTokensRequest, context: MessagesRequestContext): Promise<number> {
  // The planner takes a message request; max_tokens plays no part in routing.
  const plan = await deps.planner.plan({ max_tokens: 1, ...request } as MessageRequest, context);
  const count = async (attempt: Attempt): Promise<number> => {
    // Counting has no fast mode: the call goes without the fast-mode flag (and its beta header).
    const { fast: _fast, ...call } = attemptCall(request, attempt, context, await revealKey(attempt, context.caller.accountId, deps.vault));
    return deps.adapterFor(attempt.provider.family).countTokens(call);
  };
  const run = await runAttempts(plan.attempts, count, { signal: context.signal });
  if (!run.ok) throw run.error;
  return run.result;
}
