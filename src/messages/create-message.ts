/**
 * `POST /messages` as a service: plan the attempts, run them until one answers, feed the outcomes back to
 * routing, and add the gateway's fields. A JSON answer is complete when returned; a stream is returned once
 * its first event has arrived, so every failure before the first byte is still a failover.
 */
import { answerRateLimitHeaders, ownKeyRateLimitHeaders } from '#src/messages/own-key-rate-limits.ts';
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import type { Logger } from '#src/logger.ts';
import type { AdapterMessage, ApiFamily, ProviderAdapter, SseEvent } from '#src/providers/provider-adapter.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import { logWarnings, messageDroppedFields, streamDroppedFields, messageResponseModel, settle, settleStream, startStream, streamEvents, streamStartedUsage, streamMessageId, streamOutcomeStage, streamResponseModel } from '#src/messages/attempt-answers.ts';
import { staged } from '#src/providers/event-stages.ts';
import { amendStream, finalizeMessage } from '#src/messages/gateway-additions.ts';
import { answerAdditions } from '#src/messages/answer-additions.ts';
import { withMaxTokensHeader } from '#src/messages/max-tokens-header.ts';
import { withDroppedFieldsHeader } from '#src/messages/dropped-fields-header.ts';
import { withGatewayBlocksAsText } from '#src/messages/passed-back-gateway-blocks.ts';
import { checkSearchServable, withSearchRunByGateway } from '#src/messages/anthropic-search-run.ts';
import { hasAnthropicWebSearch } from '#src/server-tools/web-search/anthropic-web-search.ts';
import { checkReadableMedia } from '#src/messages/readable-media.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { refusedHopOf, withRefusedHops } from '#src/messages/refused-hops.ts';
import { refusalCharge, withRefusalCharges } from '#src/messages/refusal-charges.ts';
import { answerRefusalBilled, refusalBilled } from '#src/messages/refusal-billing.ts';
import { spliceRefusalFallbacks, type StartNextModel } from '#src/messages/refusal-fallback-stream.ts';
import { runAttempts, type AttemptRecord } from '#src/messages/run-attempts.ts';
import type { RefusedAttemptCharge } from '#src/messages/tool-loop/loop-tally.ts';
import { checkToolLoop, type ServerToolsDeps } from '#src/messages/tool-loop/prepare-tool-loop.ts';
import { createToolLoopMessage } from '#src/messages/tool-loop/tool-loop-service.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { CredentialSource, RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import type { PluginDeps } from '#src/plugins/plugin-deps.ts';
import { screeningReservation } from '#src/plugins/moderation/model-moderation.ts';
import { applyPluginsBeforeRouting, applyPluginsPerAttempt, applyPluginsToMessage, applyPluginsToStream, preparePlugins, routedBy, type PreparedPlugins } from '#src/plugins/plugin-pipeline.ts';
import type { ScreeningAdmission } from '#src/plugins/plugin-deps.ts';
import { hasGatewayTools } from '#src/server-tools/index.ts';
import { checkToolChoiceTarget } from '#src/request/tool-choice-target.ts';
import { checkBase64Sources } from '#src/request/base64-sources.ts';

/** What the messages service needs. */
export interface MessagesDeps {
  planner: RequestPlanner;
  /** Decrypts a BYOK key for the attempt about to use it. */
  vault: Pick<CredentialSource, 'revealKey'>;
  adapterFor(family: ApiFamily): ProviderAdapter;
  /** The gateway's own tools, for requests that name one (the server-side tool loop). */
  serverTools: ServerToolsDeps;
  logger: Logger;
  /** The plugins' configuration and what they use (the gateway's tools, the moderation clients). */
  plugins: PluginDeps;
  /**
   * Checks the caller's key limits once the plan is known and before anything is sent, the plugins' upstream
   * calls included (src/limits/): throws the 402 or 429 to answer with. Absent: no limits.
   */
  admission?: Admission;
}

/**
 * The key limits as the messages service sees them (src/limits/key-limiter.ts). A plain request is admitted
 * once, before its plugins call any upstream; a tool loop is checked by the same rules at that point, taking
 * nothing (`checkLoop`), then admits every step (each upstream call reserves its worst case and settles to its
 * real cost), and a streamed loop takes its stream slot once. The moderation screening by a catalog model is
 * reserved with a plain request (`admit`), as a step in a tool loop (`admitScreening`), and its cost is spent
 * as soon as it is answered (`settleScreening`).
 */
export interface Admission extends ScreeningAdmission {
  /**
   * `screening`: the moderation model's screening calls, reserved with the request. Returns the rate-limit
   * headers of the key's per-minute windows as the admission left them, for the answer.
   */
  admit(plan: RequestPlan, context: MessagesRequestContext, screening?: readonly Pick<RequestPlan, 'request' | 'attempts'>[]): Promise<Record<string, string> | undefined>;
  /** Throws the 402 or 429 a tool loop's admission would give now; takes and counts nothing. */
  checkLoop(request: Pick<MessageRequest, 'stream'>, context: MessagesRequestContext): Promise<void>;
  /** Returns the step's hold id, or undefined when nothing is held. */
  admitStep(plan: Pick<RequestPlan, 'request' | 'attempts'>, context: MessagesRequestContext, step: number): Promise<string | undefined>;
  admitLoopStream(plan: RequestPlan, context: MessagesRequestContext): Promise<void>;
  /** Reserves what the prompt's growth after admission (the web plugins' additions) adds to the worst case. */
  topUp(admitted: Pick<RequestPlan, 'request' | 'attempts'>, sent: Pick<RequestPlan, 'request' | 'attempts'>, context: MessagesRequestContext): Promise<void>;
  settleStep(generationId: string, holdId: string, actual: { cost: number; tokens: number }): void;
}

/** A complete message, or an event stream whose first event has arrived. */
export type CreateMessageOutcome =
  | { kind: 'message'; message: MessageResponse; headers?: Record<string, string> | undefined }
  | { kind: 'stream'; events: AsyncIterable<SseEvent>; headers?: Record<string, string> | undefined };

// Module functions rather than arrows in createMessage: nothing of the request is closed over.
function isRefusalAnswer(answer: AdapterMessage): boolean {
  return answer.message.stop_reason === 'refusal';
}

function reportedUsageOf(answer: AdapterMessage): AdapterMessage['message']['usage'] {
  return answer.message.usage;
}

function outputTokensOf(answer: AdapterMessage): number {
  return answer.message.usage.output_tokens;
}

function messageIdOf(answer: AdapterMessage): string {
  return answer.message.id;
}

function refusalBilledOf(answer: AdapterMessage, attempt: Attempt): boolean {
  return answerRefusalBilled(attempt.provider.family, answer.message);
}

/**
 * Plans the request and admits it against the key's limits (the 402 or 429 is thrown), reserving the
 * moderation model's screening with it: one check and one request for both. `windowHeaders`: the key's
 * per-minute windows as the admission left them, for the answer.
 */
async function planAndAdmit(deps: MessagesDeps, prepared: PreparedPlugins, context: MessagesRequestContext): Promise<{ plan: RequestPlan; windowHeaders: Record<string, string> | undefined }> {
  // A conversation passed back from a tool-loop answer: its gateway blocks become text every vendor reads.
  const plan = await deps.planner.plan(withGatewayBlocksAsText(prepared.request), context);
  const windowHeaders = await deps.admission?.admit(plan, context, screeningReservation(prepared.screening));
  return { plan, windowHeaders };
}

/** Creates one message through the gateway's routing; a request naming a gateway tool runs the tool loop. */
export async function createMessage(deps: MessagesDeps, sent: MessageRequest, context: MessagesRequestContext): Promise<CreateMessageOutcome> {
  // Client mistakes every vendor refuses, answered before any upstream call in one wording for all of them.
  checkToolChoiceTarget(sent);
  checkBase64Sources(sent);
  // Anthropic's web search on a plan with translated endpoints: run by the gateway for them, as a gateway
  // tool (one check of `tools` for any other request).
  const request = hasAnthropicWebSearch(sent.tools) ? await withSearchRunByGateway(sent, deps, context) : sent;
  if (request !== sent) context.stickyRequest = sent;
  const prepared = await preparePlugins(deps, request, context);
  // Plugins may change the first user turn (PDFs read, search results or pages added), which keys a session
  // named by no id: the key is the client's, so every request of the conversation finds the same pin.
  const { enabled } = prepared.state;
  if (prepared.request !== request || enabled.web || enabled['web-fetch']) context.stickyRequest = sent;
  // The one check a request without gateway tools pays: nothing else of the loop runs for it.
  const loop = request.tools !== undefined && hasGatewayTools(request.tools) ? checkToolLoop(request, deps.serverTools.config) : null;
  // A plain request is admitted before any upstream call, the moderation screening's included, so a key its
  // limits refuse costs nothing; a tool loop admits each call as it comes (the screening first), so it is
  // checked by the same rules first (its 400s before): a refused key's loop runs no plugin either.
  const admission = loop ? null : await planAndAdmit(deps, prepared, context);
  const admitted = admission?.plan ?? null;
  const windowHeaders = admission?.windowHeaders;
  if (loop && context.caller.limits) await deps.admission?.checkLoop(request, context);
  const routed = await applyPluginsBeforeRouting(deps, prepared, context, { admitted: !loop });
  if (routed.kind === 'answer') return routed.outcome;
  if (loop) return createToolLoopMessage(deps, routed.request, context, routed.state, loop);
  // The web plugins' pages and results change the prompt: it is planned again (and sent) with them.
  const plan = admitted && routed.request === prepared.request ? admitted : await deps.planner.plan(withGatewayBlocksAsText(routed.request), context);
  // The key's limits admitted the prompt before the web plugins' additions (nothing is fetched for a key they
  // refuse): what they added is reserved now, so other requests of the key see the real worst case.
  if (admitted && plan !== admitted && context.caller.limits) await deps.admission?.topUp(admitted, plan, context);
  const state = routed.state;
  routedBy(state, plan);
  const call = async (attempt: Attempt) => {
    // Anthropic's web search on a gateway without a search backend: only an Anthropic-format endpoint serves it.
    checkSearchServable(plan.request, attempt);
    const sent = applyPluginsPerAttempt(plan.request, attempt, state);
    checkReadableMedia(sent, attempt);
    return attemptCall(sent, attempt, context, await revealKey(attempt, context.caller.accountId, deps.vault));
  };

  if (request.stream !== true) {
    // Every refusal the run moved on from, in order: the answer shows each hop (src/messages/refused-hops.ts).
    const refusals: { attempt: Attempt; answer: AdapterMessage }[] = [];
    const generate = async (attempt: Attempt) => {
      const answer = await deps.adapterFor(attempt.provider.family).generate(await call(attempt));
      if (isRefusalAnswer(answer)) refusals.push({ attempt, answer });
      return answer;
    };
    const run = await runAttempts<AdapterMessage>(plan.attempts, generate, { signal: context.signal, isRefusal: isRefusalAnswer, reportedUsage: reportedUsageOf, refusalBilled: refusalBilledOf, responseModel: messageResponseModel, droppedFields: messageDroppedFields, maxTokens: plan.request.max_tokens });
    const { result, attempt, records } = settle(deps.planner, plan, context, run, outputTokensOf, messageIdOf);
    logWarnings(deps.logger, attempt, result.warnings, context.generationId);
    const finalized = finalizeMessage(result.message, answerAdditions(plan, attempt, () => records, context));
    const movedOn = refusals.filter((refusal) => refusal.answer !== result);
    const hops = movedOn.map((refusal) => refusedHopOf(refusal.attempt.model, refusal.answer.message));
    // The upstreams bill the refusals moved on from (not one before any output in an unbilled category): the
    // answer is charged them, each at its own prices.
    const charges = movedOn.map((refusal) => refusalCharge(refusal.attempt, refusal.answer.message.usage, refusalBilledOf(refusal.answer, refusal.attempt)));
    const served = charges.length > 0 ? { ...finalized, usage: withRefusalCharges(finalized.usage, attempt.model, charges) } : finalized;
    const message = applyPluginsToMessage(withRefusedHops(served, hops, attempt.model), state, attempt);
    const headers = answerRateLimitHeaders(ownKeyRateLimitHeaders(attempt, result.upstreamHeaders), windowHeaders);
    return { kind: 'message', message, headers: withDroppedFieldsHeader(withMaxTokensHeader(headers, plan.request.max_tokens, attempt), result.droppedFields) };
  }

  const start = async (attempt: Attempt) => startStream(attempt, await deps.adapterFor(attempt.provider.family).stream(await call(attempt)));
  const first = settleStream(deps.planner, plan, context, await runAttempts(plan.attempts, start, { signal: context.signal, responseModel: streamResponseModel, droppedFields: streamDroppedFields, maxTokens: plan.request.max_tokens }));
  // The attempt whose stream goes on now, and the stage that reports its outcome to routing.
  let serving = first.attempt;
  let lastIndex = first.index;
  const refusedModels = new Set<string>();
  // The id the client is given: the first stream's (a stream spliced in after a refusal goes on under it).
  const clientMessageId = streamMessageId(first.result);
  const amended = (run: typeof first, messageId: string | undefined) => {
    logWarnings(deps.logger, run.attempt, run.result.warnings, context.generationId);
    const served = run.records.findLast((record) => record.index === run.index) as AttemptRecord;
    const outcome = streamOutcomeStage(deps.planner, plan, context, served, messageId, clientMessageId);
    // The metadata reads the trail when the stream ends: a refusal recorded since is in it.
    const events = amendStream(staged(streamEvents(run.result), outcome), answerAdditions(plan, run.attempt, () => context.trail.records, context));
    return { events, outcome };
  };
  // One parse of the first event for both ids (its message_start is raw in a passthrough stream).
  let current = amended(first, clientMessageId);
  // A refusal (known at the stream's message_delta) moves on to the next model, as a JSON answer's does.
  // What each refusal moved on from is charged (its upstream bills it), at its own attempt's prices.
  const charges: RefusedAttemptCharge[] = [];
  const startNext: StartNextModel = async (refused) => {
    refusedModels.add(refused.model);
    current.outcome.refused();
    const refusedAttempt = serving;
    const after = lastIndex;
    const skip = (attempt: Attempt, index: number) => index <= after || refusedModels.has(attempt.model);
    if (!plan.attempts.some((attempt, index) => !skip(attempt, index))) return null;
    let run: typeof first;
    try {
      run = settleStream(deps.planner, plan, context, await runAttempts(plan.attempts, start, { signal: context.signal, responseModel: streamResponseModel, droppedFields: streamDroppedFields, maxTokens: plan.request.max_tokens, skip }));
    } catch {
      // No later model answered: the refusal is the answer, its failures are in the trail.
      return null;
    }
    // The refused stream is left: routing hears it as a refusal that did not serve (no pin, no latency sample).
    const billed = refusalBilled({ family: refusedAttempt.provider.family, ...refused });
    current.outcome.movedOn(refused.usage, billed);
    charges.push(refusalCharge(refusedAttempt, refused.usage, billed));
    lastIndex = run.index;
    serving = run.attempt;
    current = amended(run, streamMessageId(run.result));
    return { model: run.attempt.model, events: current.events, started: streamStartedUsage(run.result) };
  };
  const events = spliceRefusalFallbacks(current.events, first.attempt.model, startNext, (usage) => withRefusalCharges(usage, serving.model, charges));
  // The plugins report for the attempt that served the answer's end (per-attempt reports: file-parser, context-compression).
  // The headers go out with the first event, before any splice: the first attempt's.
  const headers = answerRateLimitHeaders(ownKeyRateLimitHeaders(first.attempt, first.result.upstreamHeaders), windowHeaders);
  const firstHeaders = withDroppedFieldsHeader(withMaxTokensHeader(headers, plan.request.max_tokens, first.attempt), first.result.droppedFields);
  return { kind: 'stream', events: applyPluginsToStream(events, state, () => serving), headers: firstHeaders };
}
