/**
 * Where Anthropic's web search tool runs. An Anthropic-format upstream runs it itself, so a plan with one keeps
 * the request as sent (a translated endpoint in it is skipped as unsupported, and the Anthropic one serves).
 * A plan of translated endpoints only, on a gateway with a search backend, has the tool run by the gateway:
 * the request's `web_search_*` entries become `gateway:web_search` and the tool loop answers. Without a backend
 * the request is kept, and every translated endpoint answers 400 naming the tool type.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import type { ServerToolsConfig } from '#src/server-tools/index.ts';
import { hasAnthropicWebSearch, withAnthropicSearchAsGateway } from '#src/server-tools/web-search/anthropic-web-search.ts';

/** Whether an endpoint of the plan runs Anthropic's server tools itself. */
export function planRunsAnthropicTools(plan: Pick<RequestPlan, 'attempts'>): boolean {
  return plan.attempts.some((attempt) => attempt.provider.family === 'anthropic');
}

/**
 * The request with Anthropic's web search run by the gateway when no endpoint of its plan runs it, or the
 * request itself. Only a request offering the tool on a gateway with a search backend is planned here.
 */
export async function withSearchRunByGateway(
  request: MessageRequest,
  deps: { planner: RequestPlanner; serverTools: { config: ServerToolsConfig } },
  context: MessagesRequestContext,
): Promise<MessageRequest> {
  if (request.tools === undefined || !deps.serverTools.config.webSearch || !hasAnthropicWebSearch(request.tools)) return request;
  const plan = await deps.planner.plan(withGatewayBlocksAsText(request), context);
  if (planRunsAnthropicTools(plan)) return request;
  return { ...request, tools: withAnthropicSearchAsGateway(request.tools) };
}
