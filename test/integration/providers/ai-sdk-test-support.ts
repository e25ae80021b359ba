/**
 * Shared pieces of the AI SDK adapter tests: an attempt call for a fake upstream, event collection, and a
 * fold of Anthropic SSE events into the message they describe (what the Anthropic SDK's accumulator does),
 * so a stream can be compared whole with the non-streaming answer.
 */
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import type { AttemptCall, RawSseEvent, SseEvent } from '#src/providers/provider-adapter.ts';
import { wireEvent } from '#test/helpers/sse-events.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';

/** An attempt against a fake upstream, with a small text request unless `request` says otherwise. */
export function attemptCall(options: {
  family: AiSdkFamily;
  baseUrl: string;
  provider?: string;
  upstreamModel?: string;
  request?: Partial<MessageRequest>;
  signal?: AbortSignal;
}): AttemptCall {
  return {
    request: { model: 'vendor/model', max_tokens: 256, messages: [{ role: 'user', content: 'Hello' }], ...options.request },
    provider: options.provider ?? options.family,
    family: options.family,
    baseUrl: options.baseUrl,
    upstreamModel: options.upstreamModel ?? 'test-model',
    key: 'sk-test-key',
    forwardHeaders: {},
    signal: options.signal ?? AbortSignal.timeout(10_000),
  };
}

/** Every event of a stream as it goes on the wire, or the error that ended it (with the events before it). */
export async function collectEvents(events: AsyncIterable<SseEvent>): Promise<{ events: RawSseEvent[]; error?: unknown }> {
  const collected: RawSseEvent[] = [];
  try {
    for await (const event of events) collected.push(wireEvent(event));
    return { events: collected };
  } catch (error) {
    return { events: collected, error };
  }
}

/** The event names in order, with each delta's type: a compact view of the sequence. */
export function eventOutline(events: RawSseEvent[]): string[] {
  return events.map((event) => {
    const payload = JSON.parse(event.data) as { index?: number; delta?: { type?: string }; content_block?: { type?: string } };
    if (event.event === 'content_block_start') return `start ${payload.index} ${payload.content_block?.type}`;
    if (event.event === 'content_block_delta') return `delta ${payload.index} ${payload.delta?.type}`;
    if (event.event === 'content_block_stop') return `stop ${payload.index}`;
    return event.event;
  });
}

/** Adjacent identical outline entries collapsed to `entry xN`, so long delta runs stay readable. */
export function collapseOutline(outline: string[]): string[] {
  const collapsed: string[] = [];
  let previous: string | undefined;
  let count = 0;
  for (const entry of [...outline, '\u0000']) {
    if (entry === previous) {
      count += 1;
      continue;
    }
    if (previous !== undefined) collapsed.push(count > 1 ? `${previous} x${count}` : previous);
    previous = entry;
    count = 1;
  }
  return collapsed;
}

type AccumulatedBlock = Record<string, unknown> & { type: string };

/** Folds a complete event sequence into the message it describes; throws on an ill-formed sequence. */
export function foldEvents(events: RawSseEvent[]): MessageResponse {
  let message: MessageResponse | undefined;
  const open = new Map<number, { block: AccumulatedBlock; json: string }>();
  let stopped = false;
  for (const event of events) {
    const payload = JSON.parse(event.data) as Record<string, unknown>;
    if (payload.type !== event.event) throw new Error(`event ${event.event} carries type ${String(payload.type)}`);
    switch (event.event) {
      case 'message_start':
        if (message) throw new Error('second message_start');
        message = structuredClone(payload.message as MessageResponse);
        break;
      case 'content_block_start': {
        if (!message) throw new Error('content before message_start');
        const index = payload.index as number;
        if (index !== message.content.length || open.size > 0) throw new Error(`block ${index} starts out of order`);
        const block = structuredClone(payload.content_block as AccumulatedBlock);
        message.content.push(block as never);
        open.set(index, { block, json: '' });
        break;
      }
      case 'content_block_delta': {
        const current = open.get(payload.index as number);
        if (!current) throw new Error(`delta for block ${String(payload.index)} that is not open`);
        const delta = payload.delta as Record<string, string>;
        if (delta.type === 'text_delta') current.block.text = `${current.block.text as string}${delta.text}`;
        else if (delta.type === 'thinking_delta') current.block.thinking = `${current.block.thinking as string}${delta.thinking}`;
        else if (delta.type === 'signature_delta') current.block.signature = delta.signature;
        else if (delta.type === 'input_json_delta') current.json += delta.partial_json;
        break;
      }
      case 'content_block_stop': {
        const current = open.get(payload.index as number);
        if (!current) throw new Error(`stop for block ${String(payload.index)} that is not open`);
        if (current.block.type === 'tool_use') current.block.input = current.json === '' ? {} : JSON.parse(current.json);
        open.delete(payload.index as number);
        break;
      }
      case 'message_delta': {
        if (!message) throw new Error('message_delta before message_start');
        const delta = payload.delta as Pick<MessageResponse, 'stop_reason' | 'stop_sequence' | 'stop_details'>;
        message.stop_reason = delta.stop_reason;
        message.stop_sequence = delta.stop_sequence ?? null;
        if (delta.stop_details) message.stop_details = delta.stop_details;
        message.usage = { ...message.usage, ...(payload.usage as object) };
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      default:
        throw new Error(`unexpected event ${event.event}`);
    }
  }
  if (!message || !stopped || open.size > 0) throw new Error('the stream did not close');
  return message;
}

/** A message without the fields that differ between two calls (`id`). */
export function withoutId(message: MessageResponse): Omit<MessageResponse, 'id'> {
  const { id: _id, ...rest } = message;
  return rest;
}
