/**
 * The one state object of a streaming translation: AI SDK stream parts in, Anthropic stream events out, as
 * spec-typed objects (serialised once, by the SSE writer).
 * Anthropic blocks never overlap, while AI SDK parts may interleave (text between tool-argument deltas,
 * two tool calls streaming at once), so parts are kept as an ordered queue of segments: the head streams
 * live, the rest buffer until the head is done. Text and reasoning heads are closed as soon as anything else
 * begins (a later delta opens a new block); a tool block stays open until its input is complete, because
 * splitting its JSON would corrupt it; one whose input is not JSON stops only if the output limit cut it, else
 * the stream ends in an error first. Indices are assigned when a block starts, so they are always in order.
 * A signature Gemini puts on a text arrives with the text's last chunk, after the text went out; the block
 * that would carry it must come before the text (an answer ending in a thinking block prints as empty in
 * Claude Code), so in a stream a text's signature is not carried. Gemini asks for it back, without requiring it.
 */
import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { MessageResponse, MessageStreamEvent } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { formatWarning, newMessageId, refusalDetails, signatureCarrierBlock, stopSequenceOf } from '#src/providers/ai-sdk/convert-from-ai-sdk-result.ts';
import { convertFromAiSdkUsage, withServedSpeed } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';
import { mapAiSdkFinishReason } from '#src/providers/ai-sdk/map-ai-sdk-finish-reason.ts';
import { mapAiSdkError } from '#src/providers/ai-sdk/map-ai-sdk-error.ts';
import { billedUsageOfFinish } from '#src/providers/ai-sdk/responses-billed-usage.ts';
import { upstreamErrorOfFailedResponse } from '#src/providers/ai-sdk/responses-failure.ts';
import { closingSignature, mergeMetadata, pendingDelta, readyToStart, startingBlock, toolInputError, type Segment, type SegmentKind } from '#src/providers/ai-sdk/stream-segment.ts';

const NO_EVENTS: MessageStreamEvent[] = [];

/** Options of one translation. */
export interface AiSdkStreamStateOptions {
  profile: AiSdkVendorProfile;
  provider: string;
  upstreamModel: string;
  /** The request's estimated input tokens, asked only when the vendor reported none. */
  estimateInput: () => number;
  /** The call's secrets (`callSecrets`), removed from a vendor's error words (an in-stream 400 passes them on). */
  secrets?: readonly string[];
  fast?: boolean;
}

/** Turns AI SDK stream parts into Anthropic SSE events; see the module comment for the block rules. */
export class AiSdkStreamState {
  readonly warnings: string[] = [];
  private readonly options: AiSdkStreamStateOptions;
  private readonly messageId = newMessageId();
  private started = false;
  private nextIndex = 0;
  private readonly queue: Segment[] = [];
  private readonly latest = new Map<string, Segment>();
  private finish: { usage: LanguageModelV4Usage; finishReason: LanguageModelV4FinishReason; providerMetadata?: SharedV4ProviderMetadata } | undefined;
  private out: MessageStreamEvent[] = [];
  /** The segment the last part went to: deltas come in runs, so most parts find theirs here. */
  private current: Segment | undefined;
  /** Whether the output limit cut the answer, known once `end()` read the finish part. */
  private cutByLimit = false;
  /** Characters the model wrote (text, reasoning, tool input): the output estimate when the vendor reports no usage. */
  private outputCharacters = 0;
  /** An OpenAI Responses failure held for the usage its `finish` part brings; the reader waits a moment for it (ai-sdk-adapter.ts). */
  heldFailure: UpstreamError | undefined;
  /** The model the vendor says answers (`response-metadata`), when it said so before `message_start`. */
  private responseModel: string | undefined;

  constructor(options: AiSdkStreamStateOptions) {
    this.options = options;
  }

  /**
   * Consumes one part; returns the events it completes. An `error` part is thrown as an `UpstreamError`; an
   * OpenAI Responses one when its `finish` part has come (or the stream ended), which the AI SDK sends last
   * with the usage of the `response.failed` event, so the error carries what the vendor billed (`heldFailure`).
   */
  push(part: LanguageModelV4StreamPart): MessageStreamEvent[] {
    if (this.heldFailure) return this.afterFailure(part);
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
        this.segmentFor(part.type === 'text-start' ? 'text' : 'reasoning', part.id, part.providerMetadata);
        break;
      case 'text-delta':
      case 'reasoning-delta':
        this.append(this.segmentFor(part.type === 'text-delta' ? 'text' : 'reasoning', part.id, part.providerMetadata), part.delta);
        break;
      case 'text-end':
      case 'reasoning-end': {
        const segment = this.latest.get(`${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`);
        if (segment) {
          mergeMetadata(segment, part.providerMetadata);
          segment.ended = true;
        }
        break;
      }
      case 'tool-input-start':
        if (part.providerExecuted) this.warnings.push(`provider-executed tool call ${part.toolName} dropped`);
        else {
          this.signToolCall(part.providerMetadata);
          this.segmentFor('tool', part.id, undefined, part.toolName);
        }
        break;
      case 'tool-input-delta': {
        const segment = this.latest.get(`tool:${part.id}`);
        if (segment) this.append(segment, part.delta);
        break;
      }
      case 'tool-input-end': {
        const segment = this.latest.get(`tool:${part.id}`);
        if (segment) segment.ended = true;
        break;
      }
      case 'tool-call':
        if (!part.providerExecuted) this.completeToolCall(part.toolCallId, part.toolName, part.input, part.providerMetadata);
        break;
      case 'finish':
        this.finish = { usage: part.usage, finishReason: part.finishReason, ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}) };
        break;
      case 'error': {
        const { provider, secrets } = this.options;
        if (this.options.profile.family !== 'openai-responses') throw mapAiSdkError(part.error, provider, secrets);
        // A `response.failed` after output fails as its code says, as the same failure before output or in JSON.
        const error = upstreamErrorOfFailedResponse(part.error, provider, secrets) ?? mapAiSdkError(part.error, provider, secrets);
        if (!(error instanceof UpstreamError)) throw error;
        this.heldFailure = error;
        return NO_EVENTS;
      }
      case 'stream-start':
        this.warnings.push(...part.warnings.map(formatWarning));
        break;
      case 'response-metadata':
        if (!this.started && part.modelId) this.responseModel = part.modelId;
        break;
      case 'ping':
      case 'raw':
      case 'source':
      case 'file':
      case 'reasoning-file':
      case 'custom':
      case 'tool-result':
      case 'tool-approval-request':
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown AI SDK stream part ${JSON.stringify(unreachable)}`);
      }
    }
    this.drain(false);
    return this.take();
  }

  /**
   * Ends the translation after the last part: closes every block and emits `message_delta` and
   * `message_stop`. Without a `finish` part the upstream stream was cut short: that is thrown, not closed.
   */
  end(): MessageStreamEvent[] {
    if (this.heldFailure) throw this.heldFailure;
    if (!this.finish) {
      throw new UpstreamError({ provider: this.options.provider, kind: 'malformed_response', message: `Upstream ${this.options.provider} failed: the stream ended before it finished` });
    }
    const finish = mapAiSdkFinishReason(this.finish.finishReason, this.options.profile.label);
    if (finish.outcome === 'failure') {
      throw new UpstreamError({ provider: this.options.provider, kind: finish.kind, message: `Upstream ${this.options.provider} failed: ${finish.detail}` });
    }
    this.cutByLimit = finish.stopReason === 'max_tokens';
    this.drain(true);
    const usage = withServedSpeed(convertFromAiSdkUsage(this.finish.usage, { inputTokens: this.options.estimateInput, outputCharacters: () => this.outputCharacters }), this.finish.providerMetadata, this.options.profile.namespace, this.options.fast);
    const stopSequence = finish.stopReason === 'stop_sequence' ? (stopSequenceOf(this.finish.providerMetadata, this.options.profile) ?? null) : null;
    this.emit({
      type: 'message_delta',
      delta: { stop_reason: finish.stopReason, stop_sequence: stopSequence, ...(finish.refusal ? { stop_details: refusalDetails(finish.refusal, this.finish) } : {}) },
      usage,
    });
    this.emit({ type: 'message_stop' });
    return this.take();
  }

  /** After a held failure nothing more reaches the client: the `finish` part gives its usage, then it is thrown. */
  private afterFailure(part: LanguageModelV4StreamPart): MessageStreamEvent[] {
    const failure = this.heldFailure as UpstreamError;
    if (part.type !== 'finish') return NO_EVENTS;
    failure.billedUsage = billedUsageOfFinish(part.usage);
    throw failure;
  }

  private segmentFor(kind: SegmentKind, id: string, metadata: SharedV4ProviderMetadata | undefined, toolName?: string): Segment {
    const { current } = this;
    if (current !== undefined && current.kind === kind && current.id === id && !current.ended) {
      mergeMetadata(current, metadata);
      return current;
    }
    const key = `${kind}:${id}`;
    const existing = this.latest.get(key);
    if (existing && !existing.ended) {
      mergeMetadata(existing, metadata);
      this.current = existing;
      return existing;
    }
    // Anything new ends an open text or reasoning segment; a later delta of that id opens a fresh block.
    for (const segment of this.queue) if (segment.kind !== 'tool') segment.ended = true;
    const segment: Segment = { kind, id, pending: '', received: '', ended: false, ...(kind === 'tool' ? { toolCallId: id, toolName } : {}) };
    mergeMetadata(segment, metadata);
    this.queue.push(segment);
    this.latest.set(key, segment);
    this.current = segment;
    return segment;
  }

  private append(segment: Segment, delta: string): void {
    segment.pending += delta;
    this.outputCharacters += delta.length;
    if (segment.kind !== 'text') segment.received += delta;
  }

  private completeToolCall(toolCallId: string, toolName: string, input: string, metadata: SharedV4ProviderMetadata | undefined): void {
    // Streamed calls end with the whole call again (after `tool-input-end`): that one adds nothing.
    let segment = this.latest.get(`tool:${toolCallId}`);
    if (!segment) {
      this.signToolCall(metadata);
      segment = this.segmentFor('tool', toolCallId, undefined, toolName);
    }
    // A call that arrives whole (Gemini, Bedrock without deltas) becomes one input_json_delta.
    if (segment.received === '' && segment.index === undefined) this.append(segment, input);
    segment.ended = true;
  }

  /** Queues the empty thinking block that carries a tool call's signature, ahead of the call. */
  private signToolCall(metadata: SharedV4ProviderMetadata | undefined): void {
    const carrier = signatureCarrierBlock(metadata, this.options.profile, 'tool_use');
    if (!carrier) return;
    for (const segment of this.queue) if (segment.kind !== 'tool') segment.ended = true;
    this.queue.push({ kind: 'signature', pending: '', received: '', ended: true, signature: carrier.signature ?? '' });
  }

  /** Emits what the head of the queue can: its start, its pending deltas, its stop once ended. */
  private drain(final: boolean): void {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Segment;
      if (final) head.ended = true;
      if (head.index === undefined && !readyToStart(head, this.options.profile)) {
        if (!head.ended) return;
        this.queue.shift(); // an empty text or reasoning segment: nothing to show
        continue;
      }
      if (head.index === undefined) this.startBlock(head);
      this.flushDeltas(head);
      if (!head.ended) return;
      // A tool input that is not JSON waits for the finish part: only a cut by the output limit closes it.
      if (!final && toolInputError(head, this.options.provider)) return;
      this.stopBlock(head);
      this.queue.shift();
    }
  }

  private startBlock(segment: Segment): void {
    this.ensureMessageStarted();
    segment.index = this.nextIndex++;
    this.emit({ type: 'content_block_start', index: segment.index, content_block: startingBlock(segment, this.options.profile) });
  }

  private flushDeltas(segment: Segment): void {
    if (segment.pending === '') return;
    const delta = pendingDelta(segment);
    segment.pending = '';
    this.emit({ type: 'content_block_delta', index: segment.index as number, delta });
  }

  private stopBlock(segment: Segment): void {
    const inputError = toolInputError(segment, this.options.provider);
    // A call the output limit cut keeps what it had, as Anthropic's own `max_tokens` answers do.
    if (inputError && !this.cutByLimit) throw inputError;
    const signature = closingSignature(segment, this.options.profile);
    if (signature !== undefined) this.emit({ type: 'content_block_delta', index: segment.index as number, delta: { type: 'signature_delta', signature } });
    this.emit({ type: 'content_block_stop', index: segment.index as number });
  }

  private ensureMessageStarted(): void {
    if (this.started) return;
    this.started = true;
    const message: MessageResponse = {
      id: this.messageId,
      type: 'message',
      role: 'assistant',
      model: this.responseModel ?? this.options.upstreamModel,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    this.emit({ type: 'message_start', message });
  }

  private emit(event: MessageStreamEvent): void {
    if (event.type !== 'message_start') this.ensureMessageStarted();
    this.out.push(event);
  }

  private take(): MessageStreamEvent[] {
    // Most parts (a delta whose block is open) give one event; many give none, and share one empty array.
    if (this.out.length === 0) return NO_EVENTS;
    const events = this.out;
    this.out = [];
    return events;
  }
}
