/**
 * The one state object of a tool loop's stream: every step's upstream events in, one well-formed Anthropic
 * message out. It holds whether `message_start` went out (only the first step's does), the next client block
 * index (continuous across steps), the current step's open blocks by upstream index (each with its client
 * index, the block as the model will get it back, its tool-input buffer and gateway call), what the step said
 * (usage, stop reason, tools called), and whether the closing events went out.
 *
 * Each event is re-emitted as it arrives, re-indexed: no step is buffered. A gateway tool call's `tool_use`
 * becomes `server_tool_use` with the gateway's id, its input deltas streamed; an MCP call's `mcp_tool_use` is
 * sent whole when its input is complete (the Anthropic SDKs do not accumulate input deltas on that block).
 * Citations of the gateway's search results become `web_search_result_location`. Each step's
 * `message_delta` and `message_stop` are kept back; `finish` emits the loop's own, with the summed usage, the
 * last step's `stop_details` and the latest `container` a step named (built by loop-stream-events.ts).
 */
import type { ContentBlockParam, MessageResponse, MessageStreamEvent, ResponseContentBlock, StopReason, Usage } from '#src/api-types.ts';
import { eventPayload, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { GatewayToolCall, GatewayToolOutcome } from '#src/server-tools/index.ts';
import { fallbackBlock } from '#src/messages/refused-hops.ts';
import { refusalCategoryOf, refusalOf } from '#src/messages/refusal-billing.ts';
import { closingEvents, mergeReportedUsage, wholeBlockEvents, type LoopStreamEnd } from './loop-stream-events.ts';
import { stepUsageOf, type StepUsage } from './loop-tally.ts';
import type { ToolLoopSetup } from './prepare-tool-loop.ts';
import { clientCitation, clientUseBlock, emptyReading, gatewayCallOf, modelTextBlock, parseToolInput, type StepReading } from './step-content.ts';

type Block = Record<string, unknown> & { type: string };

interface OpenBlock {
  clientIndex: number;
  /** The block as the model gets it back on the next step, completed by the deltas. */
  model: Block;
  /** Tool input JSON received so far. */
  json: string;
  call?: GatewayToolCall;
  /** Sent whole at its stop (an MCP call), not as it streams. */
  held: boolean;
}

/** What the current step said, once its events are through. */
export interface StreamedStep {
  reading: StepReading;
  usage: StepUsage;
  stopReason: StopReason;
  stopSequence: string | null;
  /** Anthropic's details of how the step stopped (a refusal's category and explanation). */
  stopDetails: MessageResponse['stop_details'];
  /** The id the upstream gave the step's message (its `message_start`), which a thread's next step continues from. */
  messageId: string | undefined;
}

/** Options of one loop's stream. */
export interface LoopStreamStateOptions {
  setup: Pick<ToolLoopSetup, 'tools'>;
  /** The gateway's search results so far (the loop adds each step's); text citing them is mapped. */
  sources: ReadonlySet<string>;
  /** The slug and provider the message announces (the first step's). */
  model: string;
  provider: string;
}

/** Translates the loop's steps into one message's events; see the module comment. */
export class LoopStreamState {
  private readonly options: LoopStreamStateOptions;
  private started = false;
  private finished = false;
  private nextIndex = 0;
  private blocks = new Map<number, OpenBlock>();
  private blockStarted = false; // the current step started a block of its own: its output began
  private reading: StepReading = emptyReading();
  private usage: Partial<Usage> = {};
  private stopReason: StopReason = null;
  private stopSequence: string | null = null;
  private stopDetails: MessageResponse['stop_details'] = null;
  private messageId: string | undefined;
  /** The id the client was given: the first `message_start`'s (a refused first step's, when one moved on). */
  clientMessageId: string | undefined;
  /** The latest `container` a step named: code execution's, which lives on across steps. */
  private container: MessageResponse['container'] = null;

  constructor(options: LoopStreamStateOptions) {
    this.options = options;
  }

  /** Consumes one upstream event of the current step; returns the client events it gives. */
  push(event: SseEvent): SseEvent[] {
    const payload = eventPayload<MessageStreamEvent | { type: string }>(event);
    switch (payload.type) {
      case 'message_start':
        return this.messageStart(payload as Extract<MessageStreamEvent, { type: 'message_start' }>);
      case 'content_block_start':
        return this.blockStart(payload as Extract<MessageStreamEvent, { type: 'content_block_start' }>);
      case 'content_block_delta':
        return this.blockDelta(payload as Extract<MessageStreamEvent, { type: 'content_block_delta' }>);
      case 'content_block_stop':
        return this.blockStop(payload as Extract<MessageStreamEvent, { type: 'content_block_stop' }>);
      case 'message_delta': {
        const { delta, usage } = payload as Extract<MessageStreamEvent, { type: 'message_delta' }>;
        this.mergeUsage(usage as Partial<Usage>);
        this.stopReason = delta.stop_reason;
        this.stopSequence = delta.stop_sequence ?? null;
        this.stopDetails = delta.stop_details ?? null;
        if (delta.container) this.container = delta.container;
        return [];
      }
      case 'message_stop':
        return [];
      default:
        // `ping`, and events Anthropic may add: passed on as they came.
        return [event];
    }
  }

  /** Whether the current step's stream has said how it ended (its `message_delta`), i.e. was not cut short. */
  get stepEnded(): boolean {
    return this.stopReason !== null;
  }

  /**
   * The current step's refusal (its `message_delta` said so): its category, whether a block of its had started
   * (output began) and whether the prompt was refused before the model ran; null for any other end.
   */
  get stepRefusal(): { category: string | null; outputBegan: boolean; blockedBeforeModel: boolean } | null {
    return this.stopReason === 'refusal' ? { ...refusalOf(this.stopDetails), outputBegan: this.blockStarted } : null;
  }

  /**
   * The refused step goes on with the next model (its answer to the same step follows): what the refused
   * stream said is dropped (the model gets the step's request again), and the client is shown the hop.
   */
  movedOn(from: string, to: string): MessageStreamEvent[] {
    const category = refusalCategoryOf(this.stopDetails);
    this.endStep();
    return this.wholeBlock(fallbackBlock(from, to, category));
  }

  /** The usage the current step's events reported so far (its `message_start`'s, then its `message_delta`'s). */
  get reportedUsage(): Partial<Usage> {
    return { ...this.usage };
  }

  /** Ends the current step: what it asked for and said. The next step's events may follow. */
  endStep(): StreamedStep {
    const step: StreamedStep = { reading: this.reading, usage: stepUsageOf(this.usage), stopReason: this.stopReason ?? 'end_turn', stopSequence: this.stopSequence, stopDetails: this.stopDetails, messageId: this.messageId };
    this.blocks = new Map();
    this.blockStarted = false;
    this.reading = emptyReading();
    this.usage = {};
    this.stopReason = null;
    this.stopSequence = this.stopDetails = null;
    this.messageId = undefined;
    return step;
  }

  /** The result blocks of the step's gateway calls, each a whole block. */
  toolResults(outcomes: readonly GatewayToolOutcome[]): MessageStreamEvent[] {
    return outcomes.flatMap((outcome) => this.wholeBlock(outcome.clientResult));
  }

  /** The loop's closing events: one `message_delta` with the summed usage, one `message_stop`. */
  finish(end: LoopStreamEnd): MessageStreamEvent[] {
    if (this.finished) return [];
    this.finished = true;
    return closingEvents(end, this.container);
  }

  private messageStart(payload: Extract<MessageStreamEvent, { type: 'message_start' }>): SseEvent[] {
    this.mergeUsage(payload.message.usage);
    this.messageId = payload.message.id;
    if (payload.message.container) this.container = payload.message.container;
    if (this.started) return [];
    this.started = true;
    this.clientMessageId = payload.message.id;
    return [{ type: 'message_start', message: { ...payload.message, model: this.options.model, provider: this.options.provider, content: [] } }];
  }

  private blockStart(payload: Extract<MessageStreamEvent, { type: 'content_block_start' }>): SseEvent[] {
    const clientIndex = this.nextIndex++;
    const block = payload.content_block as Block;
    const open: OpenBlock = { clientIndex, model: { ...block }, json: '', held: false };
    this.blocks.set(payload.index, open);
    this.blockStarted = true;
    let shown: ResponseContentBlock = payload.content_block;
    if (block.type === 'tool_use') {
      const name = String(block.name);
      this.reading.toolsCalled.push(name);
      const call = gatewayCallOf(name, block.input, this.options.setup, block.id);
      if (!call) this.reading.clientToolCalls += 1;
      else {
        this.reading.gatewayCalls.push(call);
        open.call = call;
        open.model = { type: 'tool_use', id: call.id, name, input: block.input ?? {} };
        open.held = call.tool.kind === 'mcp';
        if (open.held) return [];
        shown = clientUseBlock({ ...call, input: {} });
      }
    } else if (block.type === 'text' && Array.isArray(block.citations) && block.citations.length > 0) {
      shown = { ...(block as ResponseContentBlock & { type: 'text' }), citations: block.citations.map((citation) => clientCitation(citation, this.options.sources)) } as ResponseContentBlock;
    }
    return [{ type: 'content_block_start', index: clientIndex, content_block: shown }];
  }

  private blockDelta(payload: Extract<MessageStreamEvent, { type: 'content_block_delta' }>): SseEvent[] {
    const open = this.blocks.get(payload.index);
    if (!open) return [];
    const { delta } = payload;
    const { model } = open;
    switch (delta.type) {
      case 'text_delta':
        model.text = `${String(model.text ?? '')}${delta.text}`;
        break;
      case 'thinking_delta':
        model.thinking = `${String(model.thinking ?? '')}${delta.thinking}`;
        break;
      case 'signature_delta':
        model.signature = delta.signature;
        break;
      case 'input_json_delta':
        open.json += delta.partial_json;
        if (open.held) return [];
        break;
      case 'citations_delta':
        model.citations = [...(Array.isArray(model.citations) ? model.citations : []), delta.citation];
        return [{ type: 'content_block_delta', index: open.clientIndex, delta: { type: 'citations_delta', citation: clientCitation(delta.citation, this.options.sources) as typeof delta.citation } }];
      default:
        // A delta type Anthropic may add: shown as it came, not kept for the next step.
        break;
    }
    return [{ ...payload, index: open.clientIndex }];
  }

  private blockStop(payload: Extract<MessageStreamEvent, { type: 'content_block_stop' }>): SseEvent[] {
    const open = this.blocks.get(payload.index);
    if (!open) return [];
    this.blocks.delete(payload.index);
    const { model } = open;
    if (open.json !== '') {
      const input = parseToolInput(open.json);
      model.input = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
      // Input that is not a JSON object reaches the tool as it is, which answers with an input error.
      if (open.call) open.call.input = input === undefined ? open.json : input;
    }
    if (model.type === 'text') this.reading.assistantTurn.push(modelTextBlock(model as Block & { type: 'text' }, this.options.sources));
    else this.reading.assistantTurn.push(model as ContentBlockParam);
    if (open.held && open.call) return this.wholeBlock(clientUseBlock(open.call), open.clientIndex);
    return [{ type: 'content_block_stop', index: open.clientIndex }];
  }

  private wholeBlock(block: ResponseContentBlock, index = this.nextIndex++): MessageStreamEvent[] {
    return wholeBlockEvents(block, index);
  }

  private mergeUsage(update: Partial<Usage> | undefined | null): void {
    mergeReportedUsage(this.usage, update);
  }
}
