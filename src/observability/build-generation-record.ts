/**
 * Builds the generation record (one row of `generations`) from a request's outcome: a pure function of plain
 * data, run off the request path. Prompts and completions are kept only under a workspace's content policy.
 */
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { toGenerationAttempt } from '#src/messages/gateway-metadata.ts';
import { isByok, servedPricing, type Attempt } from '#src/routing/attempt.ts';
import type { MessageRequest } from '#src/api-types.ts';
import type { GenerationRow } from '#src/store/schema.ts';
import type { AnswerUsage, GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { describeStep } from '#src/messages/tool-loop/loop-metadata.ts';
import { summedStepUsage, type StepRecord, type StepUnderWay } from '#src/messages/tool-loop/loop-tally.ts';
import { refusalCharge } from '#src/messages/refusal-charges.ts';
import { describeScreening } from '#src/plugins/moderation/moderation-verdict.ts';
import { generationIdTime } from '#src/http/generation-id.ts';
import { computeAnthropicCost, type AnthropicUsageFields } from '#src/catalog/pricing.ts';
import { CHARACTERS_PER_TOKEN, estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { generationResponseModel } from '#src/observability/broadcast/response-model.ts';
import { requestMcpTokens } from '#src/providers/call-secrets.ts';
import { valueScrubber } from '#src/logger.ts';

/** A generation record: exactly the stored row. */
export type GenerationRecord = GenerationRow;

/** Whether a workspace keeps prompts and completions, and for how long. */
export interface ContentPolicy {
  storeContent: boolean;
  retentionDays: number;
}

/** The prompt and completion of a request, for storage or for destinations that opt in. */
export interface GenerationContent {
  prompt: { system?: unknown; messages: unknown[] };
  completion: unknown[] | null;
}

const DAY_MS = 86_400_000;

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * The request's prompt and the answer's content, as the record and every export keep them. The request's own
 * MCP server tokens (`mcp_servers[].authorization_token`) are cut out: a server that quotes its token puts it in
 * the `mcp_tool_result` the upstream's connector passes on (or a later turn passes back), and what the gateway
 * keeps must not hold a credential. Without such tokens the content is kept as it is, without a copy.
 */
export function generationContent(outcome: GenerationOutcome): GenerationContent {
  const { system, messages } = outcome.request;
  const content: GenerationContent = {
    prompt: { ...(system !== undefined ? { system } : {}), messages: messages as unknown[] },
    completion: outcome.completion ? [...outcome.completion] : null,
  };
  const tokens = requestMcpTokens(outcome.request);
  return tokens.length === 0 ? content : valueScrubber(tokens)(content);
}

/** The custom and known trace keys of the request, with the `traceparent` header when there was one. */
function traceOf(outcome: GenerationOutcome): Record<string, unknown> | null {
  const trace = outcome.request.trace;
  if (!trace && !outcome.traceparent) return null;
  return { ...trace, ...(outcome.traceparent ? { traceparent: outcome.traceparent } : {}) };
}

function hasCost(usage: AnswerUsage | null): usage is AnswerUsage & { cost: number } {
  return typeof usage?.cost === 'number' && Number.isFinite(usage.cost);
}

function finishedSteps(outcome: Pick<GenerationOutcome, 'steps'>): readonly StepRecord[] | null {
  return outcome.steps !== null && outcome.steps.length > 0 ? outcome.steps : null;
}

/**
 * What a stream that ended before its usage is known to have cost: the usage its upstream reported before (an
 * Anthropic-format upstream's `message_start`: input, cache reads and writes, the output so far) at the serving
 * endpoint's prices, since the upstream bills what it read and wrote. A translated vendor (not Anthropic-format)
 * reports its counts only at the end, so its message_start says 0: its input is estimated from `request` as
 * count_tokens does and its output from `streamedCharacters`, the characters streamed to the client, and the
 * usage is marked estimated.
 */
function unfinishedStreamUsage(reported: AnswerUsage, served: Attempt, request: MessageRequest, streamedCharacters: number): AnswerUsage & { cost: number } {
  let usage = reported;
  if (served.provider.family !== 'anthropic') {
    // Its message_start says 0, yet the vendor read the prompt and bills it.
    if (!(count(usage.input_tokens) > 0)) usage = { ...usage, input_tokens: estimateInputTokens(request), estimated: true };
    const output = Math.ceil(streamedCharacters / CHARACTERS_PER_TOKEN);
    if (output > count(usage.output_tokens)) usage = { ...usage, output_tokens: output, estimated: true };
  }
  // The usage object is message_start's as sent (its `cache_creation` split included), read as Anthropic's.
  const fields = { ...usage, input_tokens: usage.input_tokens ?? 0, output_tokens: usage.output_tokens ?? 0 } as AnthropicUsageFields;
  return { ...usage, cost: computeAnthropicCost(fields, servedPricing(served, fields.speed), served.modelPricing) };
}

/**
 * Whether a stream ended before its usage yet owes what its upstream read: the client left, or the upstream
 * failed part-way once it had started answering (message_start, which always carries input_tokens). One that
 * failed before is a failed call, charged nothing, as a JSON request that fails.
 */
function endedUnfinished(outcome: Pick<GenerationOutcome, 'status' | 'stream'>, reported: AnswerUsage | null | undefined): boolean {
  return outcome.status === 'cancelled' || (outcome.status === 'error' && outcome.stream && reported?.input_tokens !== undefined);
}

/** The tokens and cost of two parts of one request, summed (a loop's finished steps and its step under way). */
function addUsage(a: AnswerUsage, b: AnswerUsage): AnswerUsage {
  const sum = (x: number | null | undefined, y: number | null | undefined) => (x ?? 0) + (y ?? 0);
  const thinking = sum(a.output_tokens_details?.thinking_tokens, b.output_tokens_details?.thinking_tokens);
  return {
    input_tokens: sum(a.input_tokens, b.input_tokens),
    output_tokens: sum(a.output_tokens, b.output_tokens),
    cache_creation_input_tokens: sum(a.cache_creation_input_tokens, b.cache_creation_input_tokens),
    cache_read_input_tokens: sum(a.cache_read_input_tokens, b.cache_read_input_tokens),
    ...(a.output_tokens_details || b.output_tokens_details ? { output_tokens_details: { thinking_tokens: thinking } } : {}),
    ...(a.estimated === true || b.estimated === true ? { estimated: true as const } : {}),
    cost: sum(a.cost, b.cost),
  };
}

/**
 * What the vendors billed for attempts that failed all the same (an OpenAI Responses `response.failed` reports
 * its usage), each priced at its own endpoint; null when none reported any.
 */
function billedFailures(attempts: readonly AttemptRecord[]): (AnswerUsage & { cost: number }) | null {
  let billed: AnswerUsage | null = null;
  for (const record of attempts) {
    if (!record.billedUsage) continue;
    const priced = { ...record.billedUsage, cost: computeAnthropicCost(record.billedUsage, servedPricing(record.attempt, record.billedUsage.speed)) };
    billed = billed ? addUsage(billed, priced) : priced;
  }
  return billed ? { ...billed, cost: billed.cost ?? 0 } : null;
}

/**
 * The refusals the request moved on from (each record's `refusedUsage`), each priced at its own endpoint (at
 * nothing when its upstream does not bill it, `refusalUnbilled`), past
 * the first `charged` of them (a tool loop's finished steps charge their own, which come first); null when none.
 */
function refusedCalls(attempts: readonly AttemptRecord[], charged = 0): (AnswerUsage & { cost: number }) | null {
  let refused: AnswerUsage | null = null;
  let skipped = 0;
  for (const record of attempts) {
    const reported = record.refusedUsage;
    if (!reported) continue;
    if (skipped < charged) {
      skipped += 1;
      continue;
    }
    const fields = { ...reported, input_tokens: reported.input_tokens ?? 0, output_tokens: reported.output_tokens ?? 0 } as AnthropicUsageFields;
    // A refusal its upstream does not bill (one before any output) keeps its tokens, at no cost.
    const priced: AnswerUsage = { ...fields, cost: record.refusalUnbilled ? 0 : computeAnthropicCost(fields, servedPricing(record.attempt, fields.speed), record.attempt.modelPricing) };
    refused = refused ? addUsage(refused, priced) : priced;
  }
  return refused ? { ...refused, cost: refused.cost ?? 0 } : null;
}

/**
 * The refused calls a streamed loop's step under way moved on from, each at its own endpoint's prices (at nothing
 * when its upstream does not bill it), its tokens kept: answered before the step, they are owed however it ends.
 */
function underWayRefusals(underWay: StepUnderWay): AnswerUsage[] {
  return underWay.refused.map(({ attempt, usage, billed }) => {
    const charge = refusalCharge(attempt, usage, billed);
    return { ...charge.usage, cost: charge.cost };
  });
}

/** Whether the vendor reported what `attempt`'s stream used when it failed part-way: then that is charged, not an estimate. */
function billedWhenFailed(attempts: readonly AttemptRecord[], attempt: Attempt): boolean {
  const last = attempts[attempts.length - 1];
  return last !== undefined && last.attempt === attempt && last.billedUsage !== undefined;
}

/**
 * What the key was charged, which the record shows and the key limits settle: the answer's usage (its cost
 * includes the moderation screening), or, without an answer's cost (a failure, a cancelled stream), the calls
 * that were answered all the same: the finished steps of a tool loop and the screening. A stream that ended
 * before its usage, because the client left or its upstream failed part-way (an in-stream error, the connection
 * cut) once it had started answering, is charged what it is known to have cost ({@link unfinishedStreamUsage}),
 * and so is a streamed tool loop's step under way. Either way, an attempt that failed after its vendor reported
 * what it used (and bills) adds that usage at its endpoint's prices ({@link billedFailures}), in place of the
 * estimate of a stream it was serving, and so does every refusal a plain request moved on from
 * ({@link refusedCalls}): its tokens always (the answer's counts are the serving call's), its cost when no
 * answer's `cost` included it.
 */
export function chargedUsage(
  outcome: Pick<GenerationOutcome, 'usage' | 'screening' | 'steps' | 'stepUnderWay' | 'status' | 'served' | 'request' | 'stream' | 'streamedCharacters' | 'attempts'>,
  finished = finishedSteps(outcome),
): AnswerUsage | null {
  let billed = billedFailures(outcome.attempts);
  const underWay = outcome.stepUnderWay;
  // A step under way after a refusal is the loop's to charge even before any step finished: the stream's
  // usage the observer read is then the refused call's message_start, not the serving call's.
  const steps = finished ?? ((underWay?.refused.length ?? 0) > 0 ? [] : null);
  // The refusals moved on from. A plain answer's cost has them (not its counts, the serving call's); a tool
  // loop's finished steps charge theirs (the answer's counts and cost sum them), and so does its step under
  // way (`underWayRefusals`); the step that failed without an answer does not.
  const ownRefusals = steps ? steps.reduce((sum, step) => sum + (step.refusals?.length ?? 0), underWay?.refused.length ?? 0) : 0;
  const refused = refusedCalls(outcome.attempts, ownRefusals);
  if (hasCost(outcome.usage)) {
    const answered = refused && !steps ? addUsage(outcome.usage, { ...refused, cost: 0 }) : outcome.usage;
    return billed ? addUsage(answered, billed) : answered;
  }
  // No answer's cost has them (an error after them, a stream the client left): they are charged as billed.
  if (refused) billed = billed ? { ...addUsage(billed, refused), cost: billed.cost + refused.cost } : refused;
  const screeningCost = outcome.screening?.cost ?? 0;
  if (steps) {
    let summed: AnswerUsage = summedStepUsage(steps);
    if (underWay) summed = underWayRefusals(underWay).reduce(addUsage, summed);
    // The step's own streamed characters are not counted apart from the earlier steps': its output is what it reported.
    if (underWay && endedUnfinished(outcome, underWay.usage) && !billedWhenFailed(outcome.attempts, underWay.attempt)) {
      summed = addUsage(summed, unfinishedStreamUsage(underWay.usage, underWay.attempt, underWay.request, 0));
    }
    if (billed) summed = addUsage(summed, billed);
    return { ...summed, cost: (summed.cost ?? 0) + screeningCost };
  }
  const { served, usage } = outcome;
  if (usage && served && endedUnfinished(outcome, usage) && !billedWhenFailed(outcome.attempts, served)) {
    const charged = unfinishedStreamUsage(usage, served, outcome.request, outcome.streamedCharacters ?? 0);
    const total = billed ? addUsage(charged, billed) : charged;
    return { ...total, cost: (total.cost ?? 0) + screeningCost };
  }
  if (billed) return { ...billed, cost: billed.cost + screeningCost };
  return outcome.screening ? { ...usage, cost: screeningCost } : usage;
}

/** Builds the record of one request. */
export function buildGenerationRecord(outcome: GenerationOutcome, policy: ContentPolicy): GenerationRecord {
  const steps = finishedSteps(outcome);
  const usage = chargedUsage(outcome, steps);
  const content = policy.storeContent ? generationContent(outcome) : null;
  return {
    id: outcome.id,
    accountId: outcome.accountId,
    workspaceId: outcome.workspaceId,
    keyHash: outcome.keyHash,
    // The id's own time (the request's arrival, within a millisecond of `startedAt`): the records' key orders
    // and bounds them by it (generation-store.ts).
    createdAt: new Date(generationIdTime(outcome.id) ?? outcome.startedAt),
    requestedModel: outcome.request.model,
    model: outcome.served?.model ?? null,
    // Read from the served attempt's record, already made: no JSON work for it.
    responseModel: generationResponseModel(outcome) ?? null,
    provider: outcome.served?.provider.slug ?? null,
    providerName: outcome.served?.provider.displayName ?? null,
    isByok: outcome.served ? isByok(outcome.served) : false,
    stream: outcome.stream,
    status: outcome.status,
    httpStatus: outcome.httpStatus,
    stopReason: outcome.stopReason,
    errorType: outcome.error?.type ?? null,
    errorMessage: outcome.error?.message ?? null,
    inputTokens: count(usage?.input_tokens),
    outputTokens: count(usage?.output_tokens),
    cacheReadTokens: count(usage?.cache_read_input_tokens),
    cacheWriteTokens: count(usage?.cache_creation_input_tokens),
    reasoningTokens: count(usage?.output_tokens_details?.thinking_tokens),
    usageEstimated: usage?.estimated === true,
    cost: hasCost(usage) ? usage.cost : 0,
    timeToFirstByteMs: outcome.timeToFirstByteMs === null ? null : Math.round(outcome.timeToFirstByteMs),
    totalMs: Math.round(outcome.totalMs),
    sessionId: outcome.sessionId,
    userId: outcome.request.user ?? null,
    trace: traceOf(outcome),
    attempts: outcome.attempts.map(toGenerationAttempt),
    toolSteps: steps ? steps.map(describeStep) : null,
    moderation: outcome.screening ? describeScreening(outcome.screening) : null,
    prompt: content?.prompt ?? null,
    completion: content?.completion ?? null,
    contentExpiresAt: content ? new Date(outcome.startedAt + policy.retentionDays * DAY_MS) : null,
  };
}
