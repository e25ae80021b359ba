/**
 * `POST /messages` as a service: plan the attempts, run them until one answers, feed the outcomes back to
 * routing, and add the gateway's fields. A JSON answer is complete when returned; a stream is returned once
 * its first event has arrived, so every failure before the first byte is still a failover.
 */
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import type { AdapterMessage, ApiFamily, ProviderAdapter, SseEvent } from '#src/providers/provider-adapter.ts';
import { computeCost, usageFromAnthropic } from '#src/catalog/pricing.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import { amendStream, finalizeMessage, type AdditionsContext } from '#src/messages/gateway-additions.ts';
import { buildGatewayMetadata } from '#src/messages/gateway-metadata.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { runAttempts, type AttemptRecord, type AttemptsRun } from '#src/messages/run-attempts.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import type { CredentialSource, RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';

/** What the messages service needs. */
export interface MessagesDeps {
  planner: RequestPlanner;
  /** Decrypts a BYOK key for the attempt about to use it. */
  vault: Pick<CredentialSource, 'revealKey'>;
  adapterFor(family: ApiFamily): ProviderAdapter;
  logger: Logger;
  /**
   * Checks the caller's key limits once the plan is known and before anything is sent (src/limits/): throws
   * the 402 or 429 to answer with. Absent: no limits.
   */
  admission?: { admit(plan: RequestPlan, context: MessagesRequestContext): Promise<void> };
}

/** A complete message, or an event stream whose first event has arrived. */
export type CreateMessageOutcome =
  | { kind: 'message'; message: MessageResponse }
  | { kind: 'stream'; events: AsyncIterable<SseEvent> };

/** A stream whose first event has arrived, so the attempt counts as answered. */
interface StartedStream {
  first: SseEvent;
  rest: AsyncIterator<SseEvent>;
  warnings: string[];
}

function additionsFor(plan: RequestPlan, attempt: Attempt, records: readonly AttemptRecord[], context: MessagesRequestContext): AdditionsContext {
  const additions: AdditionsContext = {
    model: attempt.model,
    providerName: attempt.provider.displayName,
    isByok: isByok(attempt),
    priceUsage: (usage) => computeCost(usageFromAnthropic(usage), attempt.pricing),
  };
  if (context.wantsMetadata) {
    additions.metadata = () => buildGatewayMetadata({ plan, served: attempt, records, startedAt: context.startedAt });
  }
  return additions;
}

/** What an adapter dropped or changed to fit the vendor (a cache marker, an unsupported field) goes to the log. */
function logWarnings(logger: Logger, attempt: Attempt, warnings: readonly string[], generationId: string): void {
  if (warnings.length === 0) return;
  logger.info('request adapted to the vendor', { generation_id: generationId, provider: attempt.provider.slug, model: attempt.model, warnings });
}

async function* prepend(first: SseEvent, rest: AsyncIterator<SseEvent>): AsyncGenerator<SseEvent> {
  yield first;
  try {
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}

/**
 * Feeds the outcomes back to routing and into the request's trail (for its generation record), then answers
 * with the run's error when no attempt answered.
 */
function settle<T>(deps: MessagesDeps, plan: RequestPlan, context: MessagesRequestContext, run: AttemptsRun<T>, outputTokens?: (result: T) => number): Extract<AttemptsRun<T>, { ok: true }> {
  const served = run.ok ? { index: run.index, ...(outputTokens ? { outputTokens: outputTokens(run.result) } : {}) } : null;
  deps.planner.recordOutcomes(plan, run.records, served);
  context.trail = { strategy: plan.strategy, records: run.records, served: run.ok ? run.attempt : null };
  if (!run.ok) throw run.error;
  return run;
}

/** Creates one message through the gateway's routing. */
export async function createMessage(deps: MessagesDeps, request: MessageRequest, context: MessagesRequestContext): Promise<CreateMessageOutcome> {
  const plan = await deps.planner.plan(request, context);
  await deps.admission?.admit(plan, context);
  const call = async (attempt: Attempt) => attemptCall(plan.request, attempt, context, await revealKey(attempt, context.caller.accountId, deps.vault));

  if (request.stream !== true) {
    const generate = async (attempt: Attempt) => deps.adapterFor(attempt.provider.family).generate(await call(attempt));
    const run = await runAttempts<AdapterMessage>(plan.attempts, generate, {
      signal: context.signal,
      isRefusal: (result) => result.message.stop_reason === 'refusal',
    });
    const { result, attempt, records } = settle(deps, plan, context, run, (answer) => answer.message.usage.output_tokens);
    logWarnings(deps.logger, attempt, result.warnings, context.generationId);
    return { kind: 'message', message: finalizeMessage(result.message, additionsFor(plan, attempt, records, context)) };
  }

  const start = async (attempt: Attempt): Promise<StartedStream> => {
    const stream = await deps.adapterFor(attempt.provider.family).stream(await call(attempt));
    const rest = stream.events[Symbol.asyncIterator]();
    const first = await rest.next();
    if (first.done) {
      throw new UpstreamError({ provider: attempt.provider.slug, kind: 'malformed_response', message: `Upstream ${attempt.provider.slug} sent an empty stream` });
    }
    return { first: first.value, rest, warnings: stream.warnings };
  };
  const { result, attempt, records } = settle(deps, plan, context, await runAttempts(plan.attempts, start, { signal: context.signal }));
  logWarnings(deps.logger, attempt, result.warnings, context.generationId);
  return { kind: 'stream', events: amendStream(prepend(result.first, result.rest), additionsFor(plan, attempt, records, context)) };
}
