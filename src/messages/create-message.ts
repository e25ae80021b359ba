/**
 * `POST /messages` as a service: plan the attempts, run them until one answers, and add the gateway's
 * fields. A JSON answer is complete when returned; a stream is returned once its first event has arrived,
 * so every failure before the first byte is still a failover.
 */
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import type { AdapterMessage, ProviderAdapter, ApiFamily, SseEvent } from '#src/providers/provider-adapter.ts';
import { runAttempts, type AttemptRecord } from '#src/messages/run-attempts.ts';
import { amendStream, finalizeMessage, type AdditionsContext } from '#src/messages/gateway-additions.ts';
import { buildGatewayMetadata } from '#src/messages/gateway-metadata.ts';
import type { PlanRequestContext, PreparedAttempt, PreparedPlan, RequestPlanner } from '#src/messages/prepared-plan.ts';
import type { GenerationTrail } from '#src/observability/generation-outcome.ts';

/** What the messages service needs. */
export interface MessagesDeps {
  plan: RequestPlanner;
  adapterFor(family: ApiFamily): ProviderAdapter;
  logger: Logger;
}

/** One `/messages` call. */
export interface CreateMessageInput {
  request: MessageRequest;
  context: PlanRequestContext;
  wantsMetadata: boolean;
  signal: AbortSignal;
  startedAt: number;
  /** For log lines about this request. */
  generationId?: string;
}

/** A complete message, or an event stream whose first event has arrived; `trail` says how it was routed. */
export type CreateMessageOutcome =
  | { kind: 'message'; message: MessageResponse; trail: GenerationTrail }
  | { kind: 'stream'; events: AsyncIterable<SseEvent>; trail: GenerationTrail };

/** The client headers an Anthropic-format upstream understands, forwarded as sent. */
export function forwardHeaders(headers: PlanRequestContext['headers']): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of ['anthropic-version', 'anthropic-beta'] as const) {
    const value = headers[name];
    if (typeof value === 'string') forwarded[name] = value;
  }
  return forwarded;
}

function additionsFor(plan: PreparedPlan, attempt: PreparedAttempt, records: () => AttemptRecord[], input: CreateMessageInput): AdditionsContext {
  const context: AdditionsContext = { model: attempt.model, providerName: attempt.providerName, isByok: attempt.isByok, priceUsage: attempt.priceUsage };
  if (input.wantsMetadata) {
    context.metadata = () =>
      buildGatewayMetadata({
        requested: plan.requested,
        region: plan.region,
        strategy: plan.strategy,
        available: plan.available,
        selectedIndex: attempt.availableIndex,
        records: records(),
        isByok: attempt.isByok,
        startedAt: input.startedAt,
      });
  }
  return context;
}

/** What an adapter dropped or changed to fit the vendor (a cache marker, an unsupported field) goes to the log. */
function logWarnings(logger: Logger, attempt: PreparedAttempt, warnings: readonly string[], generationId: string | undefined): void {
  if (warnings.length === 0) return;
  logger.info('request adapted to the vendor', { generation_id: generationId, provider: attempt.providerSlug, model: attempt.model, warnings });
}

async function* prepend(first: SseEvent, rest: AsyncIterator<SseEvent>): AsyncGenerator<SseEvent> {
  yield first;
  try {
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}

/** Creates one message through the gateway's routing. */
export async function createMessage(deps: MessagesDeps, input: CreateMessageInput): Promise<CreateMessageOutcome> {
  const plan = await deps.plan(input.request, input.context);
  const forwarded = forwardHeaders(input.context.headers);
  const callFor = async (attempt: PreparedAttempt) => ({
    request: plan.request,
    provider: attempt.providerSlug,
    family: attempt.family,
    upstreamModel: attempt.upstreamModel,
    ...(await attempt.resolveTarget()),
    forwardHeaders: forwarded,
    ...(attempt.fast ? { fast: true } : {}),
    ...(attempt.providerHeaders ? { providerHeaders: attempt.providerHeaders } : {}),
    signal: input.signal,
  });
  const common = {
    attempts: plan.attempts,
    identify: (attempt: PreparedAttempt) => attempt,
    onFailure: (attempt: PreparedAttempt, error: Parameters<PreparedPlan['onFailure']>[1]) => plan.onFailure(attempt, error),
    signal: input.signal,
  };

  if (input.request.stream !== true) {
    const run = await runAttempts<PreparedAttempt, AdapterMessage>({
      ...common,
      execute: async (attempt) => deps.adapterFor(attempt.family).generate(await callFor(attempt)),
      isRefusal: (result) => result.message.stop_reason === 'refusal',
    });
    plan.onSuccess(run.attempt, { durationMs: run.records.at(-1)?.duration_ms ?? 0, outputTokens: run.result.message.usage.output_tokens });
    logWarnings(deps.logger, run.attempt, run.result.warnings, input.generationId);
    const message = finalizeMessage(run.result.message, additionsFor(plan, run.attempt, () => run.records, input));
    return { kind: 'message', message, trail: { strategy: plan.strategy, attempts: run.records, served: run.attempt } };
  }

  const run = await runAttempts<PreparedAttempt, { first: SseEvent; rest: AsyncIterator<SseEvent>; warnings: string[] }>({
    ...common,
    execute: async (attempt) => {
      const stream = await deps.adapterFor(attempt.family).stream(await callFor(attempt));
      const rest = stream.events[Symbol.asyncIterator]();
      const first = await rest.next();
      if (first.done) throw new UpstreamError({ provider: attempt.providerSlug, kind: 'malformed_response', message: `Upstream ${attempt.providerSlug} sent an empty stream` });
      return { first: first.value, rest, warnings: stream.warnings };
    },
  });
  plan.onSuccess(run.attempt, { durationMs: run.records.at(-1)?.duration_ms ?? 0 });
  logWarnings(deps.logger, run.attempt, run.result.warnings, input.generationId);
  const events = amendStream(prepend(run.result.first, run.result.rest), additionsFor(plan, run.attempt, () => run.records, input));
  return { kind: 'stream', events, trail: { strategy: plan.strategy, attempts: run.records, served: run.attempt } };
}
