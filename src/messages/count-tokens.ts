/**
 * `POST /messages/count_tokens` as a service: counts on the first endpoint the routing plan would use,
 * falling through the plan on retryable failures exactly like a message would, with the same adapter call.
 * With gateway tools, what is counted is what the model's first step would read: the gateway tools as the
 * function tools offered, and a passed-back conversation's gateway blocks as the tool turns the model saw.
 */
import type { CountTokensRequest, MessageRequest } from '#src/api-types.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import type { MessagesDeps } from '#src/messages/create-message.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { runAttempts } from '#src/messages/run-attempts.ts';
import { checkToolLoop, prepareToolLoop, type ToolLoopSetup } from '#src/messages/tool-loop/prepare-tool-loop.ts';
import { modelHistory } from '#src/messages/tool-loop/step-request.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { hasGatewayTools } from '#src/server-tools/index.ts';

/** The request as the model would read it on an attempt's family. */
function countedRequest(request: CountTokensRequest, setup: ToolLoopSetup | undefined, attempt: Attempt): CountTokensRequest {
  if (!setup) return request;
  const messages = modelHistory(request as MessageRequest, setup, attempt.provider.family);
  return { ...request, tools: setup.definitions, messages };
}

/** Counts the input tokens of a request on the model it names. */
export async function countTokens(deps: MessagesDeps, request: CountTokensRequest, context: MessagesRequestContext): Promise<number> {
  // The planner takes a message request; max_tokens plays no part in routing.
  const asMessage = { max_tokens: 1, ...request } as MessageRequest;
  const checked = request.tools !== undefined && hasGatewayTools(request.tools) ? checkToolLoop(asMessage, deps.serverTools.config) : undefined;
  const plan = await deps.planner.plan(asMessage, context);
  const setup = checked ? (await prepareToolLoop(asMessage, checked, deps.serverTools.runtime)).setup : undefined;
  const count = async (attempt: Attempt): Promise<number> => {
    // Counting has no fast mode: the call goes without the fast-mode flag (and its beta header).
    const key = await revealKey(attempt, context.caller.accountId, deps.vault);
    const { fast: _fast, ...call } = attemptCall(countedRequest(request, setup, attempt), attempt, context, key);
    return deps.adapterFor(attempt.provider.family).countTokens(call);
  };
  const run = await runAttempts(plan.attempts, count, { signal: context.signal });
  if (!run.ok) throw run.error;
  return run.result;
}
