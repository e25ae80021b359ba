/**
 * `POST /messages` with gateway tools: the server-side tool loop. The rules are checked first (400s, before
 * the key's limits and the plugins: create-message.ts), the request is planned once, the MCP servers' tools
 * are listed, then each step is a routed attempt over the same plan, starting with the attempt that served
 * the previous step, until the model answers without gateway tool calls, calls a client tool, or the loop
 * stops offering tools and makes its final turn. A JSON answer is one message for every step; a stream is
 * returned once the first step's first event has arrived. A step's refusal moves on to the next model in
 * `fallbacks`, its hop marked with a `fallback` block where the step's content begins (refused-hops.ts).
 */
import type { MessageRequest, MessageResponse, ResponseContentBlock } from '#src/api-types.ts';
import type { AdapterMessage } from '#src/providers/provider-adapter.ts';
import { logWarnings, messageDroppedFields, messageResponseModel, settle } from '#src/messages/attempt-answers.ts';
import type { CreateMessageOutcome, MessagesDeps } from '#src/messages/create-message.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { refusedHopBlocks, refusedHopOf } from '#src/messages/refused-hops.ts';
import { answerRefusalBilled } from '#src/messages/refusal-billing.ts';
import { withMaxTokensHeader } from '#src/messages/max-tokens-header.ts';
import { runAttempts } from '#src/messages/run-attempts.ts';
import { applyPluginsToMessage, routedBy, type PluginState } from '#src/plugins/plugin-pipeline.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import { buildLoopMetadata } from './loop-metadata.ts';
import { admitStep, finishStep, newLoopRun, settleStepHold, stepCall, stepSkips, type LoopRun } from './loop-run.ts';
import { summedUsage, stepUsageOf } from './loop-tally.ts';
import { loopTimeout } from './loop-timeout.ts';
import { prepareToolLoop, type CheckedToolLoop } from './prepare-tool-loop.ts';
import { readStepContent } from './step-content.ts';
import { passedThroughMessage, passesThrough } from './pass-through-step.ts';
import { streamToolLoop } from './tool-loop-stream.ts';

/** Plans and readies the loop of a request naming at least one gateway tool, its rules checked (`checkToolLoop`). */
export async function startLoopRun(deps: MessagesDeps, request: MessageRequest, context: MessagesRequestContext, plugins: PluginState, checked: CheckedToolLoop): Promise<LoopRun> {
  const plan = await deps.planner.plan(request, context);
  routedBy(plugins, plan);
  // Each step reserves its own worst case against the key's limits (admitStep); a streamed loop takes its one
  // stream slot here, before anything is sent.
  if (request.stream === true && context.caller.limits) await deps.admission?.admitLoopStream(plan, context);
  const { setup, warnings } = await prepareToolLoop(request, checked, deps.serverTools.runtime);
  if (warnings.length > 0) deps.logger.warn('gateway tools not offered', { generation_id: context.generationId, warnings });
  return newLoopRun(deps, request, context, plan, setup, plugins);
}

/** Runs the tool loop of a request naming at least one gateway tool, its rules checked (`checkToolLoop`). */
export async function createToolLoopMessage(deps: MessagesDeps, request: MessageRequest, context: MessagesRequestContext, plugins: PluginState, checked: CheckedToolLoop): Promise<CreateMessageOutcome> {
  const run = await startLoopRun(deps, request, context, plugins, checked);
  if (request.stream === true) {
    const { events, headers } = await streamToolLoop(run);
    return { kind: 'stream', events, ...(headers ? { headers } : {}) };
  }
  const { message, attempt, headers } = await runJsonLoop(run);
  return { kind: 'message', message: applyPluginsToMessage(message, plugins, attempt), ...(headers ? { headers } : {}) };
}

async function generateStep(run: LoopRun) {
  const { deps, plan, context } = run;
  // Every refusal the step moved on from, in order: the answer marks each hop (src/messages/refused-hops.ts).
  const refusals: { attempt: Attempt; answer: AdapterMessage }[] = [];
  const generate = async (attempt: Attempt) => {
    const answer = await deps.adapterFor(attempt.provider.family).generate(await stepCall(run, attempt));
    if (answer.message.stop_reason === 'refusal') refusals.push({ attempt, answer });
    return answer;
  };
  const holdId = await admitStep(run);
  let answered;
  try {
    answered = settle(
      deps.planner,
      plan,
      context,
      await runAttempts<AdapterMessage>(plan.attempts, generate, {
        signal: context.signal,
        isRefusal: (result) => result.message.stop_reason === 'refusal',
        // Kept on a refusal's record for its span: the step charges it (loop-run.ts).
        reportedUsage: (result) => result.message.usage,
        refusalBilled: (result, attempt) => answerRefusalBilled(attempt.provider.family, result.message),
        responseModel: messageResponseModel,
        droppedFields: messageDroppedFields,
        maxTokens: run.original.max_tokens,
        ...(run.startWith !== undefined ? { startWith: run.startWith } : {}),
        skip: stepSkips(run),
      }),
      (answer) => answer.message.usage.output_tokens,
    );
  } catch (error) {
    settleStepHold(run, holdId, undefined);
    // The budget ran out during this step's call, or during the previous step's tools: say which.
    throw loopTimeout(context.signal, run.activity, error) ?? error;
  }
  logWarnings(deps.logger, answered.attempt, answered.result.warnings, context.generationId);
  const movedOn = refusals.filter((refusal) => refusal.answer !== answered.result);
  const hops = movedOn.map((refusal) => refusedHopOf(refusal.attempt.model, refusal.answer.message));
  // What each refused attempt used, which its upstream bills: charged with the step.
  const refused = movedOn.map((refusal) => ({ attempt: refusal.attempt, usage: stepUsageOf(refusal.answer.message.usage), billed: answerRefusalBilled(refusal.attempt.provider.family, refusal.answer.message) }));
  return { ...answered, holdId, hops, refused };
}

/**
 * Runs the steps to the end: one message for every step, and the attempt that served the last one. A first
 * step served by an attempt that took the request as sent is the answer as its upstream gave it.
 */
async function runJsonLoop(run: LoopRun): Promise<{ message: MessageResponse; attempt: Attempt; headers?: Record<string, string> | undefined }> {
  const content: ResponseContentBlock[] = [];
  let first: { message: MessageResponse; attempt: Attempt } | undefined;
  for (;;) {
    const step = await generateStep(run);
    if (first === undefined && passesThrough(run, step.attempt)) return passedThroughMessage(run, step);
    const { result, attempt, index, records, holdId, hops, refused } = step;
    const { message } = result;
    first ??= { message, attempt };
    const reading = readStepContent(message.content, run.setup, run.tally.sources);
    const outcome = await finishStep(run, { attempt, index, records, reading, usage: stepUsageOf(message.usage), refused, stopReason: message.stop_reason, holdId, messageId: message.id });
    // A step a model refused before another answered shows the hop where the step's content begins.
    if (hops.length > 0) content.push(...refusedHopBlocks(hops, attempt.model));
    content.push(...reading.clientBlocks, ...outcome.outcomes.map((entry) => entry.clientResult));
    if (!outcome.done) continue;
    const response: MessageResponse = {
      id: first.message.id,
      type: 'message',
      role: 'assistant',
      model: first.attempt.model,
      provider: first.attempt.provider.displayName,
      content,
      stop_reason: outcome.stopReason,
      stop_sequence: message.stop_sequence ?? null,
      // A refusal's details belong to the response only when it ends as the last step did (not a pause_turn).
      ...(message.stop_details && outcome.stopReason === message.stop_reason ? { stop_details: message.stop_details } : {}),
      ...(message.container ? { container: message.container } : {}),
      usage: { ...summedUsage(run.tally, run.context.screening?.cost ?? 0), service_tier: first.message.usage.service_tier ?? 'standard', is_byok: isByok(first.attempt) },
    };
    if (run.context.wantsMetadata) response.gateway_metadata = buildLoopMetadata(run.plan, run.tally, run.context.startedAt);
    // The header says the first step's value, as a stream's (sent before later steps); each step's attempts keep their own.
    return { message: response, attempt, headers: withMaxTokensHeader(undefined, run.original.max_tokens, first.attempt) };
  }
}
