/**
 * `POST /messages/count_tokens` as a service: counts on the first endpoint the routing plan would use,
 * falling through the plan on retryable failures exactly like a message would, with the same adapter call.
 * With gateway tools, what is counted is what the model's first step would read: the gateway tools as the
 * function tools offered, and a passed-back conversation's gateway blocks as the tool turns the model saw;
 * without, those blocks as the text a message would send.
 */
import type { CountTokensRequest, CountTokensResponse, MessageRequest } from '#src/api-types.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import type { MessagesDeps } from '#src/messages/create-message.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { checkReadableMedia } from '#src/messages/readable-media.ts';
import { runAttempts } from '#src/messages/run-attempts.ts';
import { withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import { checkSearchServable, withSearchRunByGateway } from '#src/messages/anthropic-search-run.ts';
import { hasAnthropicWebSearch } from '#src/server-tools/web-search/anthropic-web-search.ts';
import { checkToolLoop, definitionsFor, prepareToolLoop, type ToolLoopSetup } from '#src/messages/tool-loop/prepare-tool-loop.ts';
import { modelHistory } from '#src/messages/tool-loop/step-request.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { hasGatewayTools } from '#src/server-tools/index.ts';
import { ContextLengthExceededError } from '#src/errors.ts';
import { parsePdfs } from '#src/plugins/file-parser.ts';
import { applyPluginsPerAttempt } from '#src/plugins/plugin-pipeline.ts';
import { effectivePluginList, enabledPlugins } from '#src/plugins/plugin-list.ts';
import { newPluginState, type PluginState } from '#src/plugins/plugin-state.ts';
import { checkToolChoiceTarget } from '#src/request/tool-choice-target.ts';
import { checkBase64Sources } from '#src/request/base64-sources.ts';

/** The request as the model would read it on an attempt's family. */
function countedRequest(request: CountTokensRequest, setup: ToolLoopSetup | undefined, attempt: Attempt): CountTokensRequest {
  if (!setup) return withGatewayBlocksAsText(request);
  const messages = modelHistory(request as MessageRequest, setup, attempt.provider.family);
  return { ...request, tools: definitionsFor(setup, attempt.provider.family), messages };
}

/**
 * The request as `POST /messages` would plan it: the effective plugin list (the caller's defaults merged, so a
 * default `auto-router` routes the count too), and with `file-parser` or `context-compression` the plugins'
 * state for each attempt, the PDFs already read (before planning, so that endpoints without PDF input are
 * eligible under `require_parameters` as for the message). Null when no plugin applies.
 * Moderation, web and web-fetch call out to other services: a count does not run them (web and web-fetch
 * would add their results to the prompt, so a count of such a request is lower than the message's input).
 */
async function countedPlugins(deps: MessagesDeps, request: MessageRequest, context: MessagesRequestContext): Promise<{ request: MessageRequest; state: PluginState | null } | null> {
  const { config } = deps.plugins;
  if (request.plugins === undefined && !config.hasDefaults) return null;
  const list = effectivePluginList(request.plugins, config.defaults, context.caller);
  const listed: MessageRequest = list === request.plugins || list.length === 0 ? request : { ...request, plugins: [...list] };
  const enabled = enabledPlugins(list);
  if (!enabled['file-parser'] && !enabled['context-compression']) return { request: listed, state: null };
  const state = newPluginState(enabled);
  if (!enabled['file-parser']) return { request: listed, state };
  const parsed = await parsePdfs(listed);
  state.parsedPdfs = parsed.parsed;
  return { request: parsed.request, state };
}

/** The request one attempt would be sent, plugins applied; a prompt too long even so is counted as it is. */
function pluginRequest(prepared: { request: MessageRequest; state: PluginState }, attempt: Attempt): MessageRequest {
  try {
    return applyPluginsPerAttempt(prepared.request, attempt, prepared.state);
  } catch (error) {
    if (error instanceof ContextLengthExceededError) return prepared.request;
    throw error;
  }
}

/** Counts the input tokens of a request on the model it names: the answer of the attempt that counted. */
export async function countTokens(deps: MessagesDeps, sent: CountTokensRequest, context: MessagesRequestContext): Promise<CountTokensResponse> {
  // The planner takes a message request; max_tokens plays no part in routing.
  const sentAsMessage = { max_tokens: 1, ...sent } as MessageRequest;
  // Client mistakes every vendor refuses, answered before any upstream call in one wording for all of them.
  checkToolChoiceTarget(sentAsMessage);
  checkBase64Sources(sentAsMessage);
  // Anthropic's web search on a plan with translated endpoints is counted as the gateway runs it (a gateway
  // tool), on each attempt as that attempt would be sent it.
  const asMessage = hasAnthropicWebSearch(sent.tools) ? await withSearchRunByGateway(sentAsMessage, deps, context) : sentAsMessage;
  const request = asMessage === sentAsMessage ? sent : ({ ...sent, tools: asMessage.tools } as CountTokensRequest);
  const checked = request.tools !== undefined && hasGatewayTools(request.tools) ? checkToolLoop(asMessage, deps.serverTools.config) : undefined;
  const plugins = await countedPlugins(deps, asMessage, context);
  const plan = await deps.planner.plan(plugins?.request ?? asMessage, context);
  const setup = checked ? (await prepareToolLoop(asMessage, checked, deps.serverTools.runtime)).setup : undefined;
  const count = async (attempt: Attempt): Promise<CountTokensResponse> => {
    const counted = plugins?.state ? (pluginRequest({ request: plugins.request, state: plugins.state }, attempt) as CountTokensRequest) : request;
    checkSearchServable(counted, attempt);
    const sent = countedRequest(counted, setup, attempt);
    // An endpoint that cannot read the request's images or PDFs is skipped as for the message, and with none
    // left the count is the message's 400: the count is of a request the model could be sent.
    checkReadableMedia(sent, attempt);
    const key = await revealKey(attempt, context.caller.accountId, deps.vault);
    // Counting has no fast mode: the call goes without the fast-mode flag (and its beta header).
    const { fast: _fast, ...call } = attemptCall(sent, attempt, context, key);
    return deps.adapterFor(attempt.provider.family).countTokens(call);
  };
  const run = await runAttempts(plan.attempts, count, { signal: context.signal });
  if (!run.ok) throw run.error;
  return run.result;
}
