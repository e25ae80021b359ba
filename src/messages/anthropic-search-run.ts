/**
 * Where Anthropic's web search tool runs. An Anthropic-format upstream runs it itself, so a plan with one keeps
 * the request as sent (a translated endpoint in it is skipped as unsupported, and the Anthropic one serves).
 * A plan of translated endpoints only, on a gateway with a search backend, has the tool run by the gateway:
 * the request's `web_search_*` entries become `gateway:web_search` and the tool loop answers. Without a backend
 * such a plan is a 400 saying why, before any endpoint is called.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import type { ServerToolsConfig } from '#src/server-tools/index.ts';
import { isAnthropicWebSearchEntry, withAnthropicSearchAsGateway } from '#src/server-tools/web-search/anthropic-web-search.ts';

/** Whether an endpoint of the plan runs Anthropic's server tools itself. */
export function planRunsAnthropicTools(plan: Pick<RequestPlan, 'attempts'>): boolean {
  return plan.attempts.some((attempt) => attempt.provider.family === 'anthropic');
}

/** The 400 of a request whose every endpoint is translated, on a gateway without a search backend. */
function unservable(tools: NonNullable<MessageRequest['tools']>, plan: Pick<RequestPlan, 'requested'>): BadRequestError {
  const index = tools.findIndex(isAnthropicWebSearchEntry);
  const type = String((tools[index] as { type: unknown }).type);
  const message =
    `${type} cannot be served for ${plan.requested}: none of its endpoints is Anthropic-format (which runs the tool itself) ` +
    'and this gateway has no search backend configured (server_tools.web_search) to run it';
  return new BadRequestError(`tools[${index}].type: ${message}`, { details: [{ path: `/body/tools/${index}/type`, message }] });
}

/**
 * The request with Anthropic's web search run by the gateway when no endpoint of its plan runs it, or the
 * request itself. Callers pass only a request offering the tool (`hasAnthropicWebSearch`, checked before any
 * await); without a search backend, a plan of translated endpoints only is a 400 (thrown).
 */
export async function withSearchRunByGateway(
  request: MessageRequest,
  deps: { planner: RequestPlanner; serverTools: { config: ServerToolsConfig } },
  context: MessagesRequestContext,
): Promise<MessageRequest> {
  if (request.tools === undefined) return request;
  const plan = await deps.planner.plan(withGatewayBlocksAsText(request), context);
  if (plan.attempts.length === 0 || planRunsAnthropicTools(plan)) return request;
  if (!deps.serverTools.config.webSearch) throw unservable(request.tools, plan);
  return { ...request, tools: withAnthropicSearchAsGateway(request.tools) };
}
