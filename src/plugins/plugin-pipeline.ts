/**
 * The plugin pipeline: the three points where plugins touch a `/messages` request, and the one fixed order in
 * which they apply (documented in the spec's `Plugin`):
 *
 * 1. before routing, in two halves around the key's limits: `preparePlugins` does what costs no upstream
 *    call (the list, its 400s, `file-parser` reading the PDFs), then, once the request is admitted,
 *    `applyPluginsBeforeRouting` (request → request, or a refusal): `moderation` screens the input (a
 *    flagged input is answered here), `web-fetch` and `web` add pages and results to the last user turn;
 * 2. routing: the planner (the `auto-router` plugin is the planner's);
 * 3. per attempt (`applyPluginsPerAttempt`, request + attempt → request): `file-parser` gives an endpoint
 *    that reads PDFs the PDFs back (engine `native`), then the context-length rule, which every request
 *    follows and `context-compression` softens;
 * 4. after the answer (after-answer.ts, message → message or events → events): `response-healing`, then the
 *    reports into `gateway_metadata.plugins`.
 *
 * A request without plugins (and without configured defaults) costs one check before routing, and per
 * attempt only the context-length rule.
 */
import type { MessageRequest, MessageResponse, PluginReport } from '#src/api-types.ts';
import { BadRequestError, ContextLengthExceededError } from '#src/errors.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { estimateContextTokens } from '#src/request/estimate-input-tokens.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { fitToContext } from '#src/plugins/context-fit.ts';
import { sentMaxTokens } from '#src/request/output-limit.ts';
import { parsePdfs, restorePdfs } from '#src/plugins/file-parser.ts';
import { requestedSchema } from '#src/plugins/json-healing.ts';
import { planModelScreening, screenInput } from '#src/plugins/moderation/moderation-screen.ts';
import type { PlannedScreening } from '#src/plugins/moderation/model-moderation.ts';
import { refusalEvents, refusalMessage } from '#src/plugins/moderation/moderation-verdict.ts';
import type { PluginHookDeps } from '#src/plugins/plugin-deps.ts';
import type { ModerationConfig } from '#src/plugins/plugins-config.ts';
import { effectivePluginList, enabledPlugins, noPluginEnabled } from '#src/plugins/plugin-list.ts';
import { newPluginState, type PluginState } from '#src/plugins/plugin-state.ts';
import { newUserPrompt } from '#src/plugins/web/prompt-context.ts';
import { addFetchedPages, addSearchResults, assertWebPluginsAvailable } from '#src/plugins/web/web-plugins.ts';
import { urlsOfConversation } from '#src/server-tools/web-fetch/prior-context-urls.ts';

export { applyPluginsToMessage, applyPluginsToStream } from '#src/plugins/after-answer.ts';
export { routedBy, type PluginState } from '#src/plugins/plugin-state.ts';

/** What happens after the plugins before routing: the request goes on (changed), or it is answered already. */
export type BeforeRouting =
  | { kind: 'continue'; request: MessageRequest; state: PluginState }
  | { kind: 'answer'; outcome: { kind: 'message'; message: MessageResponse } | { kind: 'stream'; events: AsyncIterable<SseEvent> } };

async function* eventsOf(events: readonly SseEvent[]): AsyncGenerator<SseEvent> {
  yield* events;
}

/** A request after the plugins' work that calls no upstream: plain data for the rest of the hook. */
export interface PreparedPlugins {
  /** The request as the client sent it. */
  original: MessageRequest;
  /** The request with the effective plugin list and the PDFs read. */
  request: MessageRequest;
  state: PluginState;
  /** The moderation model to screen with, when the plugin is enabled. */
  moderation: ModerationConfig | null;
  /** A moderation model's screening (`engine: model`), planned so that the key's limits reserve it with the request. */
  screening: PlannedScreening | null;
}

/**
 * The first half of the hook before routing, which calls no upstream (so it runs before the key's limits are
 * checked): the effective plugin list, its 400s for what the gateway cannot serve, the PDFs read, the plan of
 * a moderation model's screening.
 */
export async function preparePlugins(deps: PluginHookDeps, request: MessageRequest, context: MessagesRequestContext): Promise<PreparedPlugins> {
  const { config } = deps.plugins;
  if (request.plugins === undefined && !config.hasDefaults) return { original: request, request, state: newPluginState({}), moderation: null, screening: null };
  const list = effectivePluginList(request.plugins, config.defaults, context.caller);
  const enabled = enabledPlugins(list);
  let routed: MessageRequest = list === request.plugins || list.length === 0 ? request : { ...request, plugins: [...list] };
  const state = newPluginState(enabled);
  if (noPluginEnabled(enabled)) return { original: request, request: routed, state, moderation: null, screening: null };

  const moderation = enabled.moderation ? config.moderation : null;
  if (enabled.moderation && !moderation) throw new BadRequestError('the moderation plugin is not available: this gateway has no moderation model configured (plugins.moderation)');
  assertWebPluginsAvailable(deps.plugins.serverTools, enabled.web, enabled['web-fetch']);
  if (enabled['response-healing']) state.outputSchema = requestedSchema(request.output_config?.format);

  if (enabled['file-parser']) {
    const parsed = await parsePdfs(routed);
    routed = parsed.request;
    state.parsedPdfs = parsed.parsed;
  }
  // The input as screened: the PDFs' text included.
  const screening = moderation ? await planModelScreening(deps, moderation, routed, context) : null;
  return { original: request, request: routed, state, moderation, screening };
}

/**
 * The second half of the hook before routing, run once the key's limits admitted the request: the plugins
 * that call upstreams (`moderation`, `web-fetch`, `web`). `admitted`: the request's admission reserved the
 * screening with itself (a plain request); a tool loop's screening is admitted on its own, as a step.
 */
export async function applyPluginsBeforeRouting(deps: PluginHookDeps, prepared: PreparedPlugins, context: MessagesRequestContext, options: { admitted: boolean }): Promise<BeforeRouting> {
  const { original: request, moderation, state } = prepared;
  const { enabled } = state;
  let routed = prepared.request;
  if (moderation) {
    const screened = await screenInput(deps, moderation, routed, context, { planned: prepared.screening, admitted: options.admitted });
    if (screened.kind === 'flagged') {
      const message = refusalMessage(request, screened.verdict, context.generationId, context.screening?.cost ?? 0);
      return { kind: 'answer', outcome: request.stream === true ? { kind: 'stream', events: eventsOf(refusalEvents(message)) } : { kind: 'message', message } };
    }
    state.reports.push(screened.report);
  }
  if (!enabled['web-fetch'] && !enabled.web) return { kind: 'continue', request: routed, state };
  // The web-fetch plugin fetches the URLs of the user's own prompt, which the conversation holds by definition.
  const priorUrls = enabled['web-fetch'] ? urlsOfConversation(request.messages) : new Set<string>();
  const tools = { signal: context.signal, config: deps.plugins.serverTools, logger: deps.logger, runtime: deps.plugins.toolRuntime, priorUrls };
  // Both read the turn as the client wrote it, not with the other's additions; a turn of tool results asks
  // nothing new, so an agent's loop searches once for its prompt, not once per step.
  const turn = newUserPrompt(request.messages);
  if (enabled['web-fetch']) {
    const fetched = await addFetchedPages(routed, turn, enabled['web-fetch'], tools);
    routed = fetched.request;
    state.reports.push(fetched.report);
  }
  if (enabled.web) {
    const searched = await addSearchResults(routed, turn, enabled.web, tools);
    routed = searched.request;
    state.reports.push(searched.report);
  }
  return { kind: 'continue', request: routed, state };
}

function estimateOf(state: PluginState, request: MessageRequest): number {
  if (state.estimate?.request === request) return state.estimate.tokens;
  const tokens = estimateContextTokens(request);
  state.estimate = { request, tokens };
  return tokens;
}

/**
 * The request one attempt sends: each attempt starts again from the routed request. Throws
 * `ContextLengthExceededError` (the attempt is skipped; a 400 when no attempt can take the prompt) when the
 * prompt does not fit the endpoint's known context length, compressed or not.
 */
export function applyPluginsPerAttempt(request: MessageRequest, attempt: Attempt, state: PluginState): MessageRequest {
  const reports: PluginReport[] = [];
  let prepared = request;
  const fileParser = state.enabled['file-parser'];
  if (fileParser) {
    const native = (fileParser.pdf?.engine ?? 'native') === 'native' && attempt.pdfInput && state.parsedPdfs.size > 0;
    if (native) prepared = restorePdfs(prepared, state.parsedPdfs);
    const count = state.parsedPdfs.size;
    reports.push({ id: 'file-parser', engine: fileParser.pdf?.engine ?? 'native', documents_as_text: native ? 0 : count, documents_native: native ? count : 0 });
  }
  const compress = state.enabled['context-compression'] !== undefined;
  if (attempt.contextLength !== null || compress) {
    const tokens = estimateOf(state, prepared);
    // Every endpoint is sent max_tokens lowered to its output limit (src/request/output-limit.ts).
    const maxTokens = sentMaxTokens(prepared.max_tokens, attempt.maxOutputTokens);
    const fit = fitToContext({ request: prepared, contextLength: attempt.contextLength, compress, estimatedTokens: tokens, maxTokens });
    if (fit.kind === 'too-long') {
      const where = `the context length of ${attempt.contextLength} tokens of ${attempt.model} on ${attempt.provider.displayName}`;
      const remedy = compress ? ` even with ${fit.messagesRemoved} messages removed from the middle` : '; enable the context-compression plugin to remove messages from the middle';
      // Anthropic's words first ("prompt is too long: N tokens > M maximum"): clients such as Claude Code look
      // for them to offer compacting the conversation.
      throw new ContextLengthExceededError(`prompt is too long: about ${fit.estimatedTokens} tokens (estimated) > ${attempt.contextLength} maximum; the prompt does not fit ${where}${remedy}`);
    }
    if (compress) {
      reports.push({ id: 'context-compression', messages_removed: fit.messagesRemoved, context_length: attempt.contextLength, estimated_input_tokens: fit.estimatedTokens ?? tokens });
    }
    prepared = fit.request;
  }
  if (reports.length > 0) state.attemptReports.set(attempt, reports);
  return prepared;
}
