/**
 * Where Anthropic's web search tool runs, decided per attempt. An Anthropic-format endpoint runs it itself; a
 * translated one cannot, so on a gateway with a search backend a plan holding any translated endpoint has the
 * tool run by the gateway: the request's `web_search_*` entries become `gateway:web_search` (each keeping the
 * entry as sent) and the tool loop answers, offering an Anthropic-format attempt of the same plan the entry as
 * sent (its own search) and a translated one the gateway's `web_search` function (step-request.ts). Without a
 * backend a translated endpoint cannot serve the request: a plan of such endpoints only is a 400 saying why,
 * before any endpoint is called; in a plan that also holds an Anthropic-format endpoint, each translated
 * attempt is skipped with that 400 (`checkSearchServable`), so the failover moves on past it. Which of a
 * loop's attempts answer as the upstream sent it: `searchRunOf`.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError, UnsupportedFeatureError } from '#src/errors.ts';
import { withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import { isGatewayToolEntry, type ServerToolsConfig } from '#src/server-tools/index.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { anthropicEntryOf, hasAnthropicWebSearch, isAnthropicWebSearchEntry, withAnthropicSearchAsGateway } from '#src/server-tools/web-search/anthropic-web-search.ts';

type ToolEntry = NonNullable<MessageRequest['tools']>[number];

/** Whether an endpoint of the plan runs Anthropic's server tools itself. */
export function planRunsAnthropicTools(plan: Pick<RequestPlan, 'attempts'>): boolean {
  return plan.attempts.some((attempt) => attempt.provider.family === 'anthropic');
}

/** The 400 of Anthropic's web search a translated endpoint cannot serve, `why` saying which and why. */
function unservable<E extends BadRequestError>(Kind: new (message: string, options: { details: { path: string; message: string }[] }) => E, tools: NonNullable<MessageRequest['tools']>, why: string): E {
  const index = tools.findIndex(isAnthropicWebSearchEntry);
  const type = String((tools[index] as { type: unknown }).type);
  const message = `${type} cannot be served ${why} and this gateway has no search backend configured (server_tools.web_search) to run it`;
  return new Kind(`tools[${index}].type: ${message}`, { details: [{ path: `/body/tools/${index}/type`, message }] });
}

/**
 * Throws the 400 of a translated attempt offered Anthropic's web search the gateway does not run (no search
 * backend): an `UnsupportedFeatureError`, so the run moves on to the next endpoint, and is the answer when
 * none serves. Nothing for an Anthropic-format attempt, or a request without the tool.
 */
export function checkSearchServable(request: Pick<MessageRequest, 'tools'>, attempt: Attempt): void {
  if (attempt.provider.family === 'anthropic' || !hasAnthropicWebSearch(request.tools)) return;
  throw unservable(UnsupportedFeatureError, request.tools ?? [], `by ${attempt.provider.displayName}: it is not Anthropic-format (which runs the tool itself)`);
}

/**
 * The request with Anthropic's web search run by the gateway for the plan's translated endpoints, or the
 * request itself (a plan of Anthropic-format endpoints only, or a gateway without a search backend whose plan
 * holds an Anthropic-format endpoint). Callers pass only a request offering the tool (`hasAnthropicWebSearch`,
 * checked before any await); without a search backend, a plan of translated endpoints only is a 400 (thrown).
 */
export async function withSearchRunByGateway(
  request: MessageRequest,
  deps: { planner: RequestPlanner; serverTools: { config: ServerToolsConfig } },
  context: MessagesRequestContext,
): Promise<MessageRequest> {
  if (request.tools === undefined) return request;
  const plan = await deps.planner.plan(withGatewayBlocksAsText(request), context);
  if (!plan.attempts.some((attempt) => attempt.provider.family !== 'anthropic')) return request;
  if (!deps.serverTools.config.webSearch) {
    if (planRunsAnthropicTools(plan)) return request;
    throw unservable(BadRequestError, request.tools, `for ${plan.requested}: none of its endpoints is Anthropic-format (which runs the tool itself)`);
  }
  return { ...request, tools: withAnthropicSearchAsGateway(request.tools) };
}

/**
 * How one attempt of a tool loop serves the request: `as-sent` when it is an Anthropic-format attempt of the
 * loop's first step and every gateway tool of `tools` is Anthropic's web search converted for the plan's
 * translated endpoints. Such an attempt is offered the tools as the client sent them, so it runs its own
 * search and calls no gateway tool: its answer is the client's as the upstream gave it (passed through, as a
 * plain request's), not rebuilt by the loop. `loop` otherwise: a translated attempt (the gateway runs the
 * search), a later step (the conversation holds the gateway's turns), or a request with gateway tools of its
 * own, which the gateway runs for any attempt.
 */
export function searchRunOf(family: ApiFamily, tools: readonly ToolEntry[], firstStep: boolean): 'as-sent' | 'loop' {
  if (family !== 'anthropic' || !firstStep) return 'loop';
  let converted = false;
  for (const tool of tools) {
    if (!isGatewayToolEntry(tool)) continue;
    if (anthropicEntryOf(tool) === undefined) return 'loop';
    converted = true;
  }
  return converted ? 'as-sent' : 'loop';
}
