/**
 * The one seam between the request path and observability. The route calls `begin` with the request and its
 * context, then one of `answered`, `observeStream` (a stage on the stream's events, src/providers/event-stages.ts)
 * or `failed`; each hands a plain `GenerationOutcome` (made of references to data the request already has, the
 * context's routing trail included) to the pipeline and returns at once. For streams, the two events that
 * carry usage are read as the typed objects the gateway's additions made of them; deltas are read only when
 * content is captured.
 */
import type { ContentBlockDeltaEvent, ContentBlockStartEvent, MessageDeltaEvent, MessageRequest, MessageResponse, MessageStartEvent } from '#src/api-types.ts';
import { servingStartedUsage } from '#src/messages/refusal-fallback-stream.ts';
import { clientLeft } from '#src/messages/run-attempts.ts';
import { eventPayload, isRawSseEvent, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { staged, type EventStage } from '#src/providers/event-stages.ts';
import { GatewayError, UpstreamError } from '#src/errors.ts';
import { toRenderedError } from '#src/http/error-middleware.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { AnswerUsage, GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { StreamContentCollector } from '#src/observability/stream-content.ts';

/** What is known when a request arrives: its body and its context (whose trail the service fills in). */
export interface GenerationStart {
  request: MessageRequest;
  context: MessagesRequestContext;
  /** Epoch milliseconds at the context's `startedAt`. */
  startedAtEpoch: number;
  /** Collect a stream's content blocks (the workspace stores content, or a destination wants it). */
  captureContent: boolean;
}

/** Where finished outcomes go (the pipeline); must return at once. */
export type OutcomeSink = (outcome: GenerationOutcome) => void;

/** The error class stored in a record: the gateway's class name, and an upstream failure's kind. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof UpstreamError) return `UpstreamError:${error.kind}`;
  if (error instanceof GatewayError) return error.name;
  return 'InternalError';
}

/**
 * A stream's usage so far with an event's added. Anthropic's `message_delta` may give null for a count it does
 * not restate (input, cache reads and writes): the earlier count stands, as the gateway's cost
 * (gateway-additions.ts) and the Anthropic SDK's accumulated message read it. A plain spread let the null
 * replace the count, and the record lost tokens the client was told of and the cost was priced from.
 */
function addUsage(total: AnswerUsage, update: AnswerUsage | undefined): AnswerUsage {
  const merged: AnswerUsage = { ...total, ...update };
  merged.input_tokens ??= total.input_tokens;
  merged.cache_creation_input_tokens ??= total.cache_creation_input_tokens;
  merged.cache_read_input_tokens ??= total.cache_read_input_tokens;
  merged.output_tokens_details ??= total.output_tokens_details;
  return merged;
}

/** What the answer (or its absence) adds to the request's part of an outcome. */
type AnswerPart = Pick<GenerationOutcome, 'usage' | 'stopReason' | 'responseId' | 'completion' | 'status' | 'httpStatus' | 'error' | 'timeToFirstByteMs' | 'totalMs' | 'streamedCharacters'>;

/**
 * The outcome of one request: its context's part and the answer's, in one literal with every field named.
 * Not `{ ...common, usage, … }`: V8 defines each property written after a spread with a runtime call (~1,300
 * instructions each on Node 24, callgrind), eight per request here.
 */
function outcomeOf(start: GenerationStart, answer: AnswerPart): GenerationOutcome {
  const { context } = start;
  return {
    id: context.generationId,
    startedAt: start.startedAtEpoch,
    accountId: context.caller.accountId,
    workspaceId: context.caller.workspaceId,
    keyHash: context.caller.keyHash,
    request: start.request,
    sessionId: context.session?.id ?? context.claudeCodeSessionId,
    traceparent: context.traceparent,
    stream: start.request.stream === true,
    strategy: context.trail.strategy,
    attempts: context.trail.records,
    served: context.trail.served,
    steps: context.loopSteps ?? null,
    stepUnderWay: context.loopStepUnderWay ?? null,
    screening: context.screening ?? null,
    usage: answer.usage,
    stopReason: answer.stopReason,
    responseId: answer.responseId,
    completion: answer.completion,
    status: answer.status,
    httpStatus: answer.httpStatus,
    error: answer.error,
    timeToFirstByteMs: answer.timeToFirstByteMs,
    totalMs: answer.totalMs,
    streamedCharacters: answer.streamedCharacters ?? 0,
  };
}

/** The characters a delta the gateway built carries (text, thinking, tool input); 0 for any other delta. */
function deltaCharacters(delta: ContentBlockDeltaEvent['delta']): number {
  switch (delta.type) {
    case 'text_delta':
      return delta.text.length;
    case 'thinking_delta':
      return delta.thinking.length;
    case 'input_json_delta':
      return delta.partial_json.length;
    default:
      return 0;
  }
}

/** Observes requests and feeds their outcomes to `sink`. */
export class GenerationObserver {
  private readonly sink: OutcomeSink;
  private readonly capturesContent: (workspaceId: string) => boolean;

  constructor(sink: OutcomeSink, capturesContent: (workspaceId: string) => boolean) {
    this.sink = sink;
    this.capturesContent = capturesContent;
  }

  begin(request: MessageRequest, context: MessagesRequestContext): GenerationStart {
    return {
      request,
      context,
      startedAtEpoch: Date.now() - (performance.now() - context.startedAt),
      captureContent: request.stream === true && this.capturesContent(context.caller.workspaceId),
    };
  }

  /** A JSON answer was written. */
  answered(start: GenerationStart, message: MessageResponse): void {
    const elapsed = performance.now() - start.context.startedAt;
    this.sink(
      outcomeOf(start, {
        usage: message.usage,
        stopReason: message.stop_reason ?? null,
        responseId: message.id,
        completion: message.content,
        status: message.stop_reason === 'refusal' ? 'refusal' : 'success',
        httpStatus: 200,
        error: null,
        timeToFirstByteMs: elapsed,
        totalMs: elapsed,
      }),
    );
  }

  /** The events with `streamStage` added to their stages: the outcome is recorded when the stream ends, fails or is abandoned. */
  observeStream(start: GenerationStart, events: AsyncIterable<SseEvent>): AsyncIterable<SseEvent> {
    return staged(events, this.streamStage(start));
  }

  /** The request failed before an answer: records it and rethrows, for the error middleware. */
  failed(start: GenerationStart, error: unknown): never {
    const { signal } = start.context;
    const cancelled = clientLeft(signal);
    const rendered = toRenderedError(error);
    this.sink(
      outcomeOf(start, {
        usage: null,
        stopReason: null,
        responseId: null,
        completion: null,
        status: cancelled ? 'cancelled' : 'error',
        httpStatus: rendered.status,
        error: { type: errorTypeOf(error), message: rendered.message },
        timeToFirstByteMs: null,
        totalMs: performance.now() - start.context.startedAt,
      }),
    );
    throw error;
  }

  /**
   * The stage that observes a stream (one per stream): reads usage, stop reason and (when captured) content
   * from the events as they pass, and records the outcome when the stream ends, fails or is abandoned.
   */
  streamStage(start: GenerationStart): EventStage {
    let firstByteAt: number | null = null;
    let usage: AnswerUsage = {};
    let stopReason: string | null = null;
    let streamedCharacters = 0;
    let responseId: string | null = null;
    const collector = start.captureContent ? new StreamContentCollector() : undefined;
    return {
      event(event) {
        firstByteAt ??= performance.now();
        const name = sseEventName(event);
        if (name === 'message_start') {
          const { message } = eventPayload<MessageStartEvent>(event);
          usage = addUsage(usage, message.usage);
          responseId = message.id;
        } else if (name === 'message_delta') {
          const payload = eventPayload<MessageDeltaEvent>(event);
          usage = addUsage(usage, payload.usage as AnswerUsage);
          stopReason = payload.delta.stop_reason ?? stopReason;
        } else if (name === 'content_block_start' && !isRawSseEvent(event) && (event as ContentBlockStartEvent).content_block.type === 'fallback') {
          // A refusal moved the stream on: from here its usage is the serving model's (its message_start's,
          // dropped from the client's stream), the refused call being charged from its attempt's record.
          const started = servingStartedUsage(event);
          if (started) usage = addUsage({}, started as AnswerUsage);
          if (collector) collector.add(name, eventPayload(event));
        } else {
          // A typed delta is one the gateway built (a translated vendor's): its length is read for free, and
          // is the output estimate should the stream end before the vendor's counts. Raw deltas stay unparsed.
          if (name === 'content_block_delta' && !isRawSseEvent(event)) streamedCharacters += deltaCharacters((event as ContentBlockDeltaEvent).delta);
          if (collector && name.startsWith('content_block_')) collector.add(name, eventPayload(event));
        }
        return event;
      },
      end: (how) => {
        const failed = how.kind === 'failed';
        const completed = how.kind === 'complete';
        this.sink(
          outcomeOf(start, {
            usage,
            stopReason,
            responseId,
            completion: collector ? collector.content() : null,
            status: failed ? 'error' : !completed ? 'cancelled' : stopReason === 'refusal' ? 'refusal' : 'success',
            httpStatus: 200,
            error: failed
              ? { type: errorTypeOf(how.error), message: toRenderedError(how.error).message }
              : completed
                ? null
                : { type: 'ClientDisconnected', message: 'The client disconnected before the stream ended' },
            timeToFirstByteMs: firstByteAt === null ? null : firstByteAt - start.context.startedAt,
            totalMs: performance.now() - start.context.startedAt,
            streamedCharacters,
          }),
        );
      },
    };
  }
}
