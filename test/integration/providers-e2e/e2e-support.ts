/**
 * Shared pieces of the end-to-end provider suites: a real gateway pointed at one fake vendor, the official
 * Anthropic SDK as its client, BYOK credentials created over the management API, and the checks every
 * family repeats (a well-formed event sequence, cost to the cent, typed errors, secrets kept out of sight).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageStreamEvent, Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type FakeReply, type FakeUpstream, type ReplyDelivery } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

/** A test-only model with the capabilities the scenarios need, served by one endpoint. */
export function modelYaml(options: { slug: string; provider: string; upstreamModel: string; pricing: string }): string {
  return [
    '  ' + options.slug + ':',
    '    name: E2E model',
    '    context_length: 200000',
    '    capabilities: { tools: true, thinking: true, vision: true }',
    '    endpoints:',
    `      - { provider: ${options.provider}, model: ${options.upstreamModel}, pricing: ${options.pricing} }`,
  ].join('\n');
}

/** What one e2e file runs against: a fake vendor upstream, a gateway pointed at it, and the SDK pointed at the gateway. */
export interface E2eTarget {
  upstream: FakeUpstream;
  gateway: TestGateway;
  client: Anthropic;
  close(): Promise<void>;
}

/**
 * Starts a fake upstream and a gateway whose catalog holds one provider (the YAML `providerYaml` writes for the
 * upstream, indented under `providers:`) and one model on it. Bodies that stall for a second fail, so the stall
 * cases of {@link describeBrokenAnswers} end quickly.
 */
export async function startE2eTarget(options: {
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  model: Parameters<typeof modelYaml>[0];
}): Promise<E2eTarget> {
  const upstream = await options.startUpstream();
  const catalogYaml = ['providers:', options.providerYaml(upstream), 'models:', modelYaml(options.model), ''].join('\n');
  const gateway = await startTestGateway({ catalogYaml, env: { SWITCHBOARD_UPSTREAM_BODY_TIMEOUT_MS: '1000' } });
  return {
    upstream,
    gateway,
    client: anthropicClient(gateway),
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** The official SDK pointed at the gateway, as a user configures it. */
export function anthropicClient(gateway: TestGateway): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
}

/** Creates a BYOK credential for `provider` with the management key; returns its id. */
export async function createByokCredential(gateway: TestGateway, provider: string, key: string): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/byok`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider, key, name: `e2e ${provider}` }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

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

/** What the shared fault scenarios need from one family's file. */
export interface FaultSetup {
  upstream: () => FakeUpstream;
  client: () => Anthropic;
  request: MessageCreateParamsNonStreaming;
  /** A recorded reply with the given delivery; `.json` or `.chunks.txt` is picked from the request. */
  recording: (delivery: ReplyDelivery) => FakeReply;
  /** Recorded events to send before a mid-stream fault: enough for the client to have had its first byte. */
  midStreamAfterEvents?: number;
  /** Vendor text the in-stream error carries, which must not reach the client. */
  vendorDetail?: string;
}

/**
 * Broken or truncated upstream answers: a JSON body cut short, a reset, a stalled body, and a stream cut
 * short, reset, failed in-band or stalled after it began. Each ends in a typed error; none hangs. Needs a
 * gateway whose upstream body timeout is short (about a second).
 */
export function describeBrokenAnswers(name: string, setup: FaultSetup): void {
  const detail = setup.vendorDetail ?? 'vendor-detail-7f3a';
  const after = setup.midStreamAfterEvents ?? 2;
  describe(`${name}, broken answers`, () => {
    // The scripted fault must have been served: an error for any other reason (no key, a 400) proves nothing.
    afterEach(() => {
      expect(setup.upstream().pendingReplies()).toBe(0);
    });

    it('answers a JSON body cut short with a 5xx in Anthropic error shape', async () => {
      setup.upstream().enqueue(setup.recording({ truncate: { afterEvents: 0, plusBytes: 60, mode: 'end' } }));
      expectTypedServerError(await rejectionOf(setup.client().messages.create(setup.request)));
    });

    it('answers a connection reset with a 5xx', async () => {
      setup.upstream().enqueue(reply.reset());
      expectTypedServerError(await rejectionOf(setup.client().messages.create(setup.request)));
    });

    it('answers a body that stalls after the headers with a 5xx once the body timeout passes', async () => {
      setup.upstream().enqueue(setup.recording({ stallAfterEvents: 0 }));
      expectTypedServerError(await rejectionOf(setup.client().messages.create(setup.request)));
    });

    it('ends a stream cut short with an in-band error the SDK raises', async () => {
      setup.upstream().enqueue(setup.recording({ truncate: { afterEvents: after, plusBytes: 15, mode: 'end' } }));
      await expectInBandStreamError(setup.client(), setup.request);
    });

    it('ends a stream whose socket is reset mid-way with an in-band error', async () => {
      setup.upstream().enqueue(setup.recording({ truncate: { afterEvents: after, mode: 'destroy' } }));
      await expectInBandStreamError(setup.client(), setup.request);
    });

    it("turns the vendor's in-stream error into a typed in-band error without the vendor's text", async () => {
      setup.upstream().enqueue(setup.recording({ streamError: { afterEvents: after, status: 500, message: detail } }));
      await expectInBandStreamError(setup.client(), setup.request, [detail]);
    });

    it('ends a stream that stalls mid-way with an in-band error, not a hang', async () => {
      setup.upstream().enqueue(setup.recording({ stallAfterEvents: after }));
      await expectInBandStreamError(setup.client(), setup.request);
    });
  });
}
