/**
 * A generation as OpenTelemetry spans, built as plain `ReadableSpan` data for the official OTLP exporters.
 * The tree: an optional root named `trace_name` (only when the generation starts its own trace), an optional
 * span named `span_name`, the generation span (named `generation_name`, else `chat <model>`) carrying the
 * GenAI attributes of the whole request, and one child span per attempt. With the server-side tool loop, each
 * finished step is a child span of the generation (its number, cost and the tools it called) and its attempts
 * are the step's children; attempts of a step that did not finish stay under the generation. A screening by
 * the `moderation` plugin's catalog model is a child span of the generation too (screening-observation.ts), in
 * its own window, which the generation's holds. The caller's `parent_span_id` (or `traceparent`) is the parent
 * of the topmost span, the only parent marked remote in the OTLP span flags.
 * Span kinds: the generation span is SERVER, the gateway's handling of the caller's request (its parent is
 * the caller's span); each attempt and the screening are CLIENT, the inference calls the GenAI conventions
 * describe (`chat <vendor model id>`, `server.address`, and the call's own usage, finish reason and response
 * id where known: attempt-attributes.ts); steps and the `trace_name`/`span_name` spans are INTERNAL. What the
 * request asked of every call (conversation id, stream flag, sampling parameters, reasoning level, output
 * type) is read once per generation and written on the generation span and each attempt's
 * (inference-request-attributes.ts).
 * `gen_ai.request.model` is what was asked (the client's model on the generation, the vendor's id on an
 * attempt), `gen_ai.response.model` the model the vendor's answer named (response-model.ts), and
 * `switchboard.model` the catalog slug that served (on the generation only where it is not what was asked).
 * Every GenAI name is the current conventions' (genai-attributes.ts); none is sent twice under two names.
 */
import { SpanKind, SpanStatusCode, type Attributes, type AttributeValue, type SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Attempt } from '#src/routing/attempt.ts';
import { generationContent } from '#src/observability/build-generation-record.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { ownSpanId, SPAN_ROLE } from '#src/observability/broadcast/trace-context.ts';
import { generationTimeline, stepWindows, type GenerationTimeline, type TimeWindow } from '#src/observability/broadcast/generation-timeline.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { CHAT_OPERATION, chatSpanName, genAiProviderName, type GatewaySpanAttributes } from '#src/observability/broadcast/genai-attributes.ts';
import { toGenAiMessages } from '#src/observability/broadcast/map-genai-messages.ts';
import { addInferenceRequestAttributes, inferenceRequest, type InferenceRequest } from '#src/observability/broadcast/inference-request-attributes.ts';
import { screeningSpanAttributes } from '#src/observability/broadcast/screening-observation.ts';
import { generationResponseModel } from '#src/observability/broadcast/response-model.ts';
import { attemptSpanAttributes, isFailedAttempt, type AttemptAnswer } from '#src/observability/broadcast/attempt-attributes.ts';
import type { StepRecord } from '#src/messages/tool-loop/loop-tally.ts';

/** What every span of one export shares. */
export interface SpanEnvironment {
  resource: Resource;
  scope: InstrumentationScope;
  includeContent: boolean;
}

interface SpanInput {
  name: string;
  spanId: string;
  parentSpanId: string | null;
  remoteParent?: boolean; // the parent is the caller's span (`trace.parentSpanId`), not one of ours
  kind: SpanKind;
  window: TimeWindow;
  attributes: Attributes;
  failed: boolean;
  statusMessage?: string | undefined;
}

function attributeValue(value: unknown): AttributeValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

const NO_LINKS: ReadableSpan['links'] = [];
const NO_EVENTS: ReadableSpan['events'] = [];
const UNSET_STATUS = { code: SpanStatusCode.UNSET } as const;

/** [seconds, nanoseconds] of epoch milliseconds, as OpenTelemetry's HrTime. */
function hrTime(epochMs: number): [number, number] {
  const seconds = Math.trunc(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1e6)];
}

/**
 * A finished span as plain data for the exporter. A class rather than an object literal so `spanContext` is
 * one shared method, not a closure per span; what every span says alike (no links, events or dropped counts)
 * is read from the prototype rather than stored in each of a batch's spans.
 */
class ExportedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly startTime: [number, number];
  readonly endTime: [number, number];
  readonly status: ReadableSpan['status'];
  readonly attributes: Attributes;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly #context: SpanContext;

  get links(): ReadableSpan['links'] {
    return NO_LINKS;
  }

  get events(): ReadableSpan['events'] {
    return NO_EVENTS;
  }

  get ended(): boolean {
    return true;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }

  constructor(traceId: string, input: SpanInput, environment: SpanEnvironment) {
    this.#context = { traceId, spanId: input.spanId, traceFlags: 1 };
    this.name = input.name;
    this.kind = input.kind;
    this.parentSpanContext = input.parentSpanId ? { traceId, spanId: input.parentSpanId, traceFlags: 1, isRemote: input.remoteParent === true } : undefined;
    const { start, end } = input.window;
    this.startTime = hrTime(start);
    this.endTime = hrTime(Math.max(start, end));
    this.status = input.failed ? { code: SpanStatusCode.ERROR, ...(input.statusMessage ? { message: input.statusMessage } : {}) } : UNSET_STATUS;
    this.attributes = input.attributes;
    this.resource = environment.resource;
    this.instrumentationScope = environment.scope;
  }

  // Computed when read: the exporters read the start and end times only.
  get duration(): [number, number] {
    const seconds = this.endTime[0] - this.startTime[0];
    const nanos = this.endTime[1] - this.startTime[1];
    return nanos < 0 ? [seconds - 1, nanos + 1e9] : [seconds, nanos];
  }

  spanContext(): SpanContext {
    return this.#context;
  }
}

function toSpan(traceId: string, input: SpanInput, environment: SpanEnvironment): ReadableSpan {
  return new ExportedSpan(traceId, input, environment);
}

// One array, shared by every failed generation's span: the exporter only reads it.
const ERROR_FINISH: string[] = ['error'];

function generationAttributes(item: TracedItem, shared: InferenceRequest, metadata: Record<string, unknown>, includeContent: boolean): Attributes {
  const { record, outcome } = item;
  // Literal keys, not `[GEN_AI.…]`: see GatewaySpanAttributes.
  const attributes: GatewaySpanAttributes = {
    'gen_ai.operation.name': CHAT_OPERATION,
    'gen_ai.request.model': record.requestedModel,
    'gen_ai.usage.input_tokens': record.inputTokens + record.cacheReadTokens + record.cacheWriteTokens,
    'gen_ai.usage.output_tokens': record.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': record.cacheReadTokens,
    'gen_ai.usage.cache_write.input_tokens': record.cacheWriteTokens,
    'switchboard.generation.id': record.id,
    'switchboard.status': record.status,
    'switchboard.cost_usd': record.cost,
    'switchboard.is_byok': record.isByok,
    'http.response.status_code': record.httpStatus,
  };
  addInferenceRequestAttributes(attributes, shared);
  if (record.reasoningTokens > 0) attributes['gen_ai.usage.reasoning.output_tokens'] = record.reasoningTokens;
  // GenAI conventions have no name for counts the vendor did not report: without this they read as measured.
  if (record.usageEstimated) attributes['switchboard.usage.estimated'] = true;
  if (record.provider) attributes['gen_ai.provider.name'] = genAiProviderName(record.provider);
  // What the vendor's answer named; the catalog slug that served is the gateway's own attribute, written only
  // where it says more than `gen_ai.request.model` (a fallback, an alias, the auto-router).
  const responseModel = generationResponseModel(outcome);
  if (responseModel) attributes['gen_ai.response.model'] = responseModel;
  if (record.model && record.model !== record.requestedModel) attributes['switchboard.model'] = record.model;
  if (record.stopReason) attributes['gen_ai.response.finish_reasons'] = [record.stopReason];
  // No answer came, or it broke off before its stop reason: the conventions' `error` for the one expected.
  else if (record.status === 'error' || record.status === 'cancelled') attributes['gen_ai.response.finish_reasons'] = ERROR_FINISH;
  if (outcome.responseId) attributes['gen_ai.response.id'] = outcome.responseId;
  if (record.stream && record.timeToFirstByteMs !== null) attributes['gen_ai.response.time_to_first_chunk'] = record.timeToFirstByteMs / 1000;
  if (record.userId) attributes['user.id'] = record.userId;
  if (record.errorType) attributes['error.type'] = record.errorType;
  for (const [key, value] of Object.entries(metadata)) attributes[`switchboard.metadata.${key}`] = attributeValue(value);
  if (includeContent) {
    const content = generationContent(outcome);
    const messages = toGenAiMessages(content);
    attributes['gen_ai.input.messages'] = JSON.stringify(messages.input);
    if (messages.output) attributes['gen_ai.output.messages'] = JSON.stringify(messages.output);
    if (messages.system) attributes['gen_ai.system_instructions'] = JSON.stringify(messages.system);
  }
  return attributes;
}

/** The step span an attempt belongs under, and the step's own call when the attempt served it. */
interface StepOfAttempt {
  spanId: string;
  step: StepRecord;
  /** The attempt that answered the step: the last of its records on the step's endpoint. */
  served: AttemptRecord | undefined;
}

/** The last record in `records` made on `attempt`, or undefined. */
function lastRecordOf(records: readonly AttemptRecord[], attempt: Attempt | null | undefined): AttemptRecord | undefined {
  if (!attempt) return undefined;
  for (let index = records.length - 1; index >= 0; index -= 1) if ((records[index] as AttemptRecord).attempt === attempt) return records[index];
  return undefined;
}

/**
 * One span per finished tool-loop step under the generation span, appended to `spans`; returns the step
 * each of the steps' attempts belongs under. A step lasts from its first attempt's start to its last one's end.
 * A step is not an inference call of its own: the attempt that served it (its CLIENT child) is, and carries
 * that call's provider, models, usage and finish reason, so the step span carries only what is the step's:
 * its number, the tools it called, whether they were disabled, and its cost (refused attempts' included).
 */
function stepSpans(item: TracedItem, timeline: GenerationTimeline, generationSpanId: string, spans: ReadableSpan[], environment: SpanEnvironment): Map<AttemptRecord, StepOfAttempt> | undefined {
  const steps = item.outcome.steps;
  if (!steps || steps.length === 0) return undefined;
  const parents = new Map<AttemptRecord, StepOfAttempt>();
  const windows = stepWindows(timeline, item.outcome.attempts, steps);
  steps.forEach((step, position) => {
    const spanId = ownSpanId(item.trace.own, SPAN_ROLE.step + step.step);
    const window = windows[position] ?? timeline.generation;
    const attributes: GatewaySpanAttributes = {
      'switchboard.step': step.step,
      'switchboard.step.tools_called': step.toolsCalled,
      'switchboard.step.tools_disabled': step.toolsDisabled,
      'switchboard.cost_usd': step.cost,
    };
    spans.push(toSpan(item.trace.traceId, { name: `step ${step.step}`, spanId, parentSpanId: generationSpanId, kind: SpanKind.INTERNAL, window, attributes, failed: false }, environment));
    const entry: StepOfAttempt = { spanId, step, served: lastRecordOf(step.records, step.attempt) };
    for (const tried of step.records) parents.set(tried, entry);
  });
  return parents;
}

/** Appends the `trace_name` or `span_name` span under `parent`; returns its id, the parent of what follows. */
function pushNamingSpan(spans: ReadableSpan[], trace: TracedItem['trace'], role: 'trace' | 'span', name: string, parent: string | null, window: TimeWindow, failed: boolean, environment: SpanEnvironment): string {
  const spanId = ownSpanId(trace.own, SPAN_ROLE[role]);
  spans.push(toSpan(trace.traceId, { name, spanId, parentSpanId: parent, remoteParent: parent === trace.parentSpanId, kind: SpanKind.INTERNAL, window, attributes: {}, failed }, environment));
  return spanId;
}

/**
 * The spans of one generation, topmost first, appended to `spans` when given (a batch's spans go in one
 * array, without one array per generation to flatten).
 */
export function convertToOtelSpans(item: TracedItem, environment: SpanEnvironment, spans: ReadableSpan[] = []): ReadableSpan[] {
  const { record, trace } = item;
  const timeline = generationTimeline(record, item.outcome.screening);
  const failed = record.status === 'error' || record.status === 'cancelled';
  let parent = trace.parentSpanId;
  // Only a trace of the generation's own gets a root: in a caller's trace (a `trace_id` without a parent) each
  // request sharing it would add one more root of the same name.
  if (trace.traceName && !parent && trace.traceId === trace.own.traceId) parent = pushNamingSpan(spans, trace, 'trace', trace.traceName, parent, timeline.generation, failed, environment);
  if (trace.spanName) parent = pushNamingSpan(spans, trace, 'span', trace.spanName, parent, timeline.generation, failed, environment);
  const generationSpanId = ownSpanId(trace.own, SPAN_ROLE.generation);
  // Read once: the generation span and every attempt's carry it.
  const shared = inferenceRequest(item.outcome.request, record.stream, record.sessionId);
  spans.push(
    toSpan(
      trace.traceId,
      {
        name: trace.generationName ?? chatSpanName(record.requestedModel),
        spanId: generationSpanId,
        parentSpanId: parent, remoteParent: parent === trace.parentSpanId,
        // The gateway serving the caller's request; its attempts are the CLIENT inference calls.
        kind: SpanKind.SERVER,
        window: timeline.generation,
        attributes: generationAttributes(item, shared, trace.metadata, environment.includeContent),
        failed,
        statusMessage: record.errorMessage ?? undefined,
      },
      environment,
    ),
  );
  const charge = item.outcome.screening;
  if (charge && timeline.screening) {
    // Answered (a charge exists only then), so never an error span, whatever the verdict.
    const input = { name: chatSpanName(charge.attempt.upstreamModel), spanId: ownSpanId(trace.own, SPAN_ROLE.screening), parentSpanId: generationSpanId, kind: SpanKind.CLIENT, window: timeline.screening, attributes: screeningSpanAttributes(charge, record.sessionId), failed: false };
    spans.push(toSpan(trace.traceId, input, environment));
  }
  const parentOfAttempt = stepSpans(item, timeline, generationSpanId, spans, environment);
  const { outcome } = item;
  // Outside a tool loop the answer is the served attempt's call (the last record on its endpoint: a stream
  // that failed part-way is that record too, with what its vendor reported before); a loop's calls are its
  // steps, and a streamed step under way when the request ended is the one after its finished steps.
  const servedRecord = outcome.steps === null ? lastRecordOf(outcome.attempts, outcome.served) : undefined;
  const served: AttemptAnswer | undefined = servedRecord ? { usage: outcome.usage, finishReason: outcome.stopReason, responseId: outcome.responseId } : undefined;
  const underWay = outcome.stepUnderWay;
  for (let index = 0; index < outcome.attempts.length; index += 1) {
    const tried = outcome.attempts[index]!;
    const step = parentOfAttempt?.get(tried);
    let answer: AttemptAnswer | undefined;
    if (tried === servedRecord) answer = served;
    else if (step && step.served === tried) answer = { usage: step.step.usage, finishReason: step.step.stopReason };
    else if (underWay && !step && tried.attempt === underWay.attempt) answer = { usage: underWay.usage, finishReason: undefined };
    const window = timeline.attempts[index] ?? timeline.generation;
    const input = { name: chatSpanName(tried.attempt.upstreamModel), spanId: ownSpanId(trace.own, SPAN_ROLE.attempt + index), parentSpanId: step?.spanId ?? generationSpanId, kind: SpanKind.CLIENT, window, attributes: attemptSpanAttributes(tried, index, answer, shared), failed: isFailedAttempt(tried) };
    // `{operation} {gen_ai.request.model}`, as the conventions name an inference call.
    spans.push(toSpan(trace.traceId, input, environment));
  }
  return spans;
}
