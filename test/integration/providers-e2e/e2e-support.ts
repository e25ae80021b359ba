/**
 * The checks every end-to-end provider suite repeats: a well-formed event sequence, cost to the cent, typed
 * errors, secrets kept out of sight. The target each suite runs against is in `e2e-target.ts`, the scenarios
 * every family shares (broken answers, a BYOK credential) in `e2e-scenarios.ts`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageStreamEvent, Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { expect } from 'vitest';
import type { TestGateway } from '#test/helpers/start-gateway.ts';

/** The gateway's own usage fields, which the SDK types do not know. */
export interface GatewayUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cost?: number;
  is_byok?: boolean;
}

/** The usage of a message as the gateway sent it. */
export function gatewayUsage(message: Message): GatewayUsage {
  return message.usage as unknown as GatewayUsage;
}

/** The gateway's `provider` field of a message. */
export function providerOf(message: Message): unknown {
  return (message as unknown as { provider?: unknown }).provider;
}

/** Compares a cost with the hand-computed one: equal to well under a hundredth of a cent. */
export function expectCost(actual: number | undefined, expected: number): void {
  expect(actual).toBeTypeOf('number');
  expect(Math.abs((actual as number) - expected)).toBeLessThan(1e-9);
}

/** Every event of an SDK stream and the message the SDK accumulated from them. */
export async function streamThrough(client: Anthropic, body: MessageCreateParamsNonStreaming): Promise<{ events: MessageStreamEvent[]; message: Message }> {
  const stream = client.messages.stream(body);
  const events: MessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const message = await stream.finalMessage();
  return { events, message };
}

/** The usage the gateway put on the final `message_delta` (cost and is_byok included). */
export function finalStreamUsage(events: MessageStreamEvent[]): GatewayUsage {
  const delta = events.findLast((event) => event.type === 'message_delta');
  expect(delta, 'a message_delta event').toBeDefined();
  return (delta as unknown as { usage: GatewayUsage }).usage;
}

/**
 * Asserts the Anthropic event grammar: message_start, then each content block opened, given deltas of its
 * own kind and closed in index order (no interleaving), then one message_delta and message_stop last.
 * Returns the outline (`start 0 text`, `delta 0 text_delta`...), for comparisons.
 */
export function expectWellFormed(events: MessageStreamEvent[]): string[] {
  const outline: string[] = [];
  expect(events[0]?.type).toBe('message_start');
  expect(events.at(-1)?.type).toBe('message_stop');
  let open: { index: number; type: string } | undefined;
  let nextIndex = 0;
  let deltas = 0;
  const allowed: Record<string, string[]> = {
    text: ['text_delta', 'citations_delta'],
    thinking: ['thinking_delta', 'signature_delta'],
    tool_use: ['input_json_delta'],
    server_tool_use: ['input_json_delta'],
    compaction: ['compaction_delta'],
  };
  for (const [position, event] of events.entries()) {
    switch (event.type) {
      case 'message_start':
        expect(position).toBe(0);
        break;
      case 'content_block_start':
        expect(open, 'a block opened while another is open').toBeUndefined();
        expect(event.index).toBe(nextIndex);
        open = { index: event.index, type: event.content_block.type };
        outline.push(`start ${event.index} ${event.content_block.type}`);
        break;
      case 'content_block_delta':
        expect(open?.index).toBe(event.index);
        expect(allowed[open?.type ?? ''] ?? [], `${event.delta.type} in a ${open?.type} block`).toContain(event.delta.type);
        if (outline.at(-1) !== `delta ${event.index} ${event.delta.type}`) outline.push(`delta ${event.index} ${event.delta.type}`);
        break;
      case 'content_block_stop':
        expect(open?.index).toBe(event.index);
        outline.push(`stop ${event.index}`);
        open = undefined;
        nextIndex += 1;
        break;
      case 'message_delta':
        expect(open, 'message_delta inside an open block').toBeUndefined();
        deltas += 1;
        outline.push('message_delta');
        break;
      case 'message_stop':
        expect(position).toBe(events.length - 1);
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`unexpected event ${JSON.stringify(unreachable)}`);
      }
    }
  }
  expect(deltas).toBe(1);
  return outline;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value).slice(0, 300)}`);
    },
    (error: unknown) => error,
  );
}

/**
 * A non-streaming failure: an HTTP 5xx in Anthropic's error shape whose message is the gateway's own, not
 * the vendor's body.
 */
export function expectTypedServerError(error: unknown, forbidden: string[] = []): void {
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const apiError = error as InstanceType<typeof Anthropic.APIError>;
  expect(apiError.status).toBeGreaterThanOrEqual(500);
  expect(apiError.status).toBeLessThan(600);
  const body = apiError.error as { type?: string; error?: { type?: string; message?: string } };
  expect(body.type).toBe('error');
  expect(body.error?.type).toMatch(/_error$/);
  expect(body.error?.message).toBeTypeOf('string');
  for (const text of forbidden) expect(JSON.stringify(body)).not.toContain(text);
}

/** A stream failure after the first byte: the SDK raises the gateway's in-band `error` event. */
export async function expectInBandStreamError(client: Anthropic, body: MessageCreateParamsNonStreaming, forbidden: string[] = []): Promise<MessageStreamEvent[]> {
  const stream = client.messages.stream(body);
  const events: MessageStreamEvent[] = [];
  const error = await rejectionOf(
    (async () => {
      for await (const event of stream) events.push(event);
    })(),
  );
  expect(events[0]?.type, 'the stream had started').toBe('message_start');
  expect(events.some((event) => event.type === 'message_stop')).toBe(false);
  expect(error).toBeInstanceOf(Anthropic.APIError);
  const body_ = (error as InstanceType<typeof Anthropic.APIError>).error as { type?: string; error?: { type?: string; message?: string } };
  expect(body_.type).toBe('error');
  expect(body_.error?.type).toMatch(/_error$/);
  for (const text of forbidden) expect(JSON.stringify(body_)).not.toContain(text);
  return events;
}

/** The secret appears nowhere in the given texts nor in the gateway's log lines. */
export function expectSecretHidden(gateway: TestGateway, secret: string, ...texts: string[]): void {
  for (const text of texts) expect(text).not.toContain(secret);
  expect(gateway.logs.filter((line) => line.includes(secret))).toEqual([]);
}

/** A user turn asking for the weather, with one tool; the basis of every round trip. */
export const WEATHER_TOOL = {
  name: 'weather',
  description: 'Get the weather in a location',
  input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] },
};
