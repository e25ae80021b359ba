/**
 * The one seam between the request path and observability. The route calls `begin` when a request arrives and
 * one of `answered`, `observeStream` or `failed` when it ends; each hands a plain `GenerationOutcome` to the
 * pipeline and returns at once. Per request this costs a few small objects and, for streams, the parsing of
 * two events the answer carries anyway (`message_start`, `message_delta`).
 */
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';
import { GatewayError, UpstreamError } from '#src/errors.ts';
import { AllAttemptsFailedError, type AttemptRecord } from '#src/messages/run-attempts.ts';
import { toRenderedError } from '#src/http/error-middleware.ts';
import type { AnswerUsage, GenerationOutcome, GenerationTrail } from '#src/observability/generation-outcome.ts';
import { StreamContentCollector } from '#src/observability/stream-content.ts';

/** What is known when a request arrives. */
export interface GenerationStart {
  id: string;
  /** `performance.now()` at arrival (the route's clock for TTFB and total). */
  startedAt: number;
  startedAtEpoch: number;
  accountId: string;
  workspaceId: string;
  keyHash: string;
  request: MessageRequest;
  sessionId: string | null;
  traceparent: string | null;
  /** Collect a stream's content blocks (the workspace stores content, or a destination wants it). */
  captureContent: boolean;
}

/** Where finished outcomes go (the pipeline); must return at once. */
export type OutcomeSink = (outcome: GenerationOutcome) => void;

/** Input of `begin`: the route's view of the request. */
export interface BeginInput {
  id: string;
  startedAt: number;
  caller: { accountId: string; workspaceId: string; keyHash: string };
  request: MessageRequest;
  headers: Record<string, string | string[] | undefined>;
}

function header(headers: BeginInput['headers'], name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The session a record is grouped by: the body's `session_id`, else the client's session headers. */
export function sessionIdOf(request: MessageRequest, headers: BeginInput['headers']): string | null {
  return request.session_id ?? header(headers, 'x-session-id') ?? header(headers, 'x-claude-code-session-id');
}

/** The error class stored in a record: the gateway's class name, and an upstream failure's kind. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof UpstreamError) return `UpstreamError:${error.kind}`;
  if (error instanceof GatewayError) return error.name;
  return 'InternalError';
}

/** Observes requests and feeds their outcomes to `sink`. */
export class GenerationObserver {
  private readonly sink: OutcomeSink;
  private readonly capturesContent: (workspaceId: string) => boolean;

  constructor(sink: OutcomeSink, capturesContent: (workspaceId: string) => boolean) {
    this.sink = sink;
    this.capturesContent = capturesContent;
  }

  begin(input: BeginInput): GenerationStart {
    return {
      id: input.id,
      startedAt: input.startedAt,
      startedAtEpoch: Date.now() - (performance.now() - input.startedAt),
      accountId: input.caller.accountId,
      workspaceId: input.caller.workspaceId,
      keyHash: input.caller.keyHash,
      request: input.request,
      sessionId: sessionIdOf(input.request, input.headers),
      traceparent: header(input.headers, 'traceparent'),
      captureContent: input.request.stream === true && this.capturesContent(input.caller.workspaceId),
    };
  }

  /** A JSON answer was written. */
  answered(start: GenerationStart, message: MessageResponse, trail: GenerationTrail): void {
    const elapsed = performance.now() - start.startedAt;
    this.sink({
      ...this.common(start, trail.attempts),
      strategy: trail.strategy,
      served: trail.served,
      usage: message.usage,
      stopReason: message.stop_reason ?? null,
      completion: message.content,
      status: message.stop_reason === 'refusal' ? 'refusal' : 'success',
      httpStatus: 200,
      error: null,
      timeToFirstByteMs: elapsed,
      totalMs: elapsed,
    });
  }

  /** Wraps a stream's events; the outcome is recorded when the stream ends, fails or is abandoned. */
  observeStream(start: GenerationStart, trail: GenerationTrail, events: AsyncIterable<SseEvent>): AsyncIterable<SseEvent> {
    return this.tap(start, trail, events);
  }

  /** The request failed before an answer: records it and rethrows, for the error middleware. */
  failed(start: GenerationStart, error: unknown, signal: AbortSignal): never {
    const cancelled = signal.aborted && (signal.reason as { name?: string } | undefined)?.name === 'AbortError';
    const rendered = toRenderedError(error);
    const attempts: readonly AttemptRecord[] = error instanceof AllAttemptsFailedError ? error.records : [];
    this.sink({
      ...this.common(start, attempts),
      strategy: null,
      served: null,
      usage: null,
      stopReason: null,
      completion: null,
      status: cancelled ? 'cancelled' : 'error',
      httpStatus: rendered.status,
      error: { type: errorTypeOf(error), message: rendered.message },
      timeToFirstByteMs: null,
      totalMs: performance.now() - start.startedAt,
    });
    throw error;
  }

  private common(start: GenerationStart, attempts: readonly AttemptRecord[]) {
    return {
      id: start.id,
      startedAt: start.startedAtEpoch,
      accountId: start.accountId,
      workspaceId: start.workspaceId,
      keyHash: start.keyHash,
      request: start.request,
      sessionId: start.sessionId,
      traceparent: start.traceparent,
      stream: start.request.stream === true,
      attempts,
    };
  }

  private async *tap(start: GenerationStart, trail: GenerationTrail, events: AsyncIterable<SseEvent>): AsyncGenerator<SseEvent> {
    let firstByteAt: number | null = null;
    let usage: AnswerUsage = {};
    let stopReason: string | null = null;
    let failure: unknown;
    let completed = false;
    const collector = start.captureContent ? new StreamContentCollector() : undefined;
    try {
      for await (const event of events) {
        firstByteAt ??= performance.now();
        if (event.event === 'message_start') {
          usage = { ...usage, ...(JSON.parse(event.data) as { message?: { usage?: AnswerUsage } }).message?.usage };
        } else if (event.event === 'message_delta') {
          const payload = JSON.parse(event.data) as { delta?: { stop_reason?: string | null }; usage?: AnswerUsage };
          usage = { ...usage, ...payload.usage };
          stopReason = payload.delta?.stop_reason ?? stopReason;
        } else if (collector && event.event.startsWith('content_block_')) {
          collector.add(event.event, event.data);
        }
        yield event;
      }
      completed = true;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const failed = failure !== undefined;
      this.sink({
        ...this.common(start, trail.attempts),
        strategy: trail.strategy,
        served: trail.served,
        usage,
        stopReason,
        completion: collector ? collector.content() : null,
        status: failed ? 'error' : !completed ? 'cancelled' : stopReason === 'refusal' ? 'refusal' : 'success',
        httpStatus: 200,
        error: failed ? { type: errorTypeOf(failure), message: toRenderedError(failure).message } : completed ? null : { type: 'ClientDisconnected', message: 'The client disconnected before the stream ended' },
        timeToFirstByteMs: firstByteAt === null ? null : firstByteAt - start.startedAt,
        totalMs: performance.now() - start.startedAt,
      });
    }
  }
}
