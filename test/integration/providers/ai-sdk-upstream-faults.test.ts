/**
 * Upstream failures through the real provider packages and fake vendor servers: HTTP errors in each
 * vendor's own error shape, resets, timeouts, truncated and failing streams, and content-filter refusals.
 * Every failure must surface as a typed `UpstreamError` (never a hang, a crash or a vendor body in the
 * public message).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError, type UpstreamFailureKind } from '#src/errors.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { sseEventName } from '#src/providers/provider-adapter.ts';
import {
  reply,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeReply,
  type FakeUpstream,
  type FixtureVendor,
} from '#test/helpers/fake-upstreams/index.ts';
import { attemptCall, collectEvents } from '#test/integration/providers/ai-sdk-test-support.ts';

interface Family {
  family: AiSdkFamily;
  start: () => Promise<FakeUpstream>;
  /** A recorded stream with at least four events. */
  stream: string;
  vendor?: FixtureVendor;
}

const families: Family[] = [
  { family: 'openai-chat', start: () => startFakeOpenAiChat(), stream: 'openai-text' },
  { family: 'openai-compatible', start: () => startFakeOpenAiChat(), stream: 'deepseek-tool-call', vendor: 'deepseek-chat' },
  { family: 'openai-responses', start: () => startFakeOpenAiResponses(), stream: 'openai-phase.1' },
  { family: 'google', start: () => startFakeGemini(), stream: 'google-text' },
  { family: 'bedrock', start: () => startFakeBedrock(), stream: 'amazon-bedrock-text' },
];

const SECRET = 'vendor-detail-7f3a';

let fake: FakeUpstream | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe.each(families)('$family upstream faults', ({ family, start, stream, vendor }) => {
  const adapter = createAiSdkAdapter({ family });
  const fixture = (options: Omit<Extract<FakeReply, { type: 'fixture' }>, 'type' | 'name'>) => reply.fixture(`${stream}.chunks.txt`, { ...(vendor ? { vendor } : {}), ...options });

  async function serve(...replies: FakeReply[]): Promise<string> {
    fake = await start();
    fake.enqueue(...replies);
    return fake.baseURL;
  }

  it.each([
    [429, 'rate_limited', true],
    [500, 'server_error', true],
    [503, 'overloaded', true],
    [401, 'authentication', false],
    [404, 'not_found', false],
  ] as Array<[number, UpstreamFailureKind, boolean]>)('maps HTTP %i to %s, without the vendor body in the message', async (status, kind, retryable) => {
    const baseUrl = await serve(reply.error(status, { message: SECRET }), reply.error(status, { message: SECRET }));
    for (const attempt of [() => adapter.generate(attemptCall({ family, baseUrl })), () => adapter.stream(attemptCall({ family, baseUrl }))]) {
      const error = await failure(attempt());
      expect({ kind: error.kind, upstreamStatus: error.upstreamStatus, retryable: error.retryable, fallbackEligible: error.fallbackEligible }).toEqual({
        kind,
        upstreamStatus: status,
        retryable,
        fallbackEligible: true,
      });
      expect(error.publicMessage).not.toContain(SECRET);
      expect(error.rawBody).toContain(SECRET);
    }
  });

  it('keeps a 400 as a non-retryable invalid request', async () => {
    const error = await failure(adapter.generate(attemptCall({ family, baseUrl: await serve(reply.error(400)) })));
    expect({ kind: error.kind, status: error.status, retryable: error.retryable, fallbackEligible: error.fallbackEligible }).toEqual({
      kind: 'invalid_request',
      status: 400,
      retryable: false,
      fallbackEligible: false,
    });
  });

  it('maps a connection reset before any byte to a connection failure', async () => {
    const error = await failure(adapter.generate(attemptCall({ family, baseUrl: await serve(reply.reset()) })));
    expect(error.kind).toBe('connection');
  });

  it('maps a first byte that never comes to a timeout when the attempt is aborted', async () => {
    const baseUrl = await serve(reply.json({}, { delayMs: 5_000 }));
    const error = await failure(adapter.generate(attemptCall({ family, baseUrl, signal: AbortSignal.timeout(150) })));
    expect(error.kind).toBe('timeout');
  });

  it.each([
    ['a socket destroyed mid-stream', { truncate: { afterEvents: 1, plusBytes: 5, mode: 'destroy' as const } }],
    ['a body that ends cleanly mid-stream', { truncate: { afterEvents: 1, plusBytes: 5, mode: 'end' as const } }],
    ['an in-stream overload error', { streamError: { afterEvents: 1, status: 503 } }],
  ])('ends %s in a typed error, from stream() or the event iterator', async (_name, delivery) => {
    // Some packages read the first chunk before `doStream` resolves, so an early fault may surface there.
    const { events, error } = await adapter.stream(attemptCall({ family, baseUrl: await serve(fixture(delivery)) })).then(
      (result) => collectEvents(result.events),
      (thrown: unknown) => ({ events: [], error: thrown }),
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(['connection', 'malformed_response', 'overloaded', 'server_error']).toContain((error as UpstreamError).kind);
    expect((error as UpstreamError).retryable).toBe(true);
    expect(events.map((event) => event.event)).not.toContain('message_stop');
  });

  it('stops reading the upstream when the consumer stops early', async () => {
    const result = await adapter.stream(attemptCall({ family, baseUrl: await serve(fixture({ stallAfterEvents: 5 })) }));
    const iterator = result.events[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done ? undefined : sseEventName(first.value)).toBe('message_start');
    await iterator.return?.(undefined);
  });
});

describe('content filters', () => {
  it.each([
    {
      family: 'openai-chat' as const,
      start: () => startFakeOpenAiChat(),
      body: {
        id: 'chatcmpl-filtered',
        object: 'chat.completion',
        created: 1770933883,
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }],
        usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12 },
      },
      explanation: 'OpenAI Chat Completions stopped the answer with its content filter (content_filter).',
    },
    {
      family: 'google' as const,
      start: () => startFakeGemini(),
      body: { candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'SAFETY', index: 0 }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 0, totalTokenCount: 12 } },
      explanation: 'Google Gemini stopped the answer with its content filter (SAFETY).',
    },
    {
      family: 'bedrock' as const,
      start: () => startFakeBedrock(),
      body: { output: { message: { role: 'assistant', content: [{ text: 'Sorry.' }] } }, stopReason: 'guardrail_intervened', usage: { inputTokens: 12, outputTokens: 2, totalTokens: 14 } },
      explanation: 'Amazon Bedrock stopped the answer with its content filter (guardrail_intervened).',
    },
  ])('turns a $family content filter into stop_reason refusal with details', async ({ family, start, body, explanation }) => {
    // Hand-made bodies in the vendor's documented shape: no recording of a filtered answer exists.
    fake = await start();
    fake.enqueue(reply.json(body));
    const { message } = await createAiSdkAdapter({ family }).generate(attemptCall({ family, baseUrl: fake.baseURL }));
    expect({ stop_reason: message.stop_reason, stop_details: message.stop_details }).toEqual({ stop_reason: 'refusal', stop_details: { type: 'refusal', explanation } });
  });
});

describe('configuration faults', () => {
  it('refuses to call a keyed vendor without a key instead of falling back to environment credentials', async () => {
    fake = await startFakeBedrock();
    const call = { ...attemptCall({ family: 'bedrock', baseUrl: fake.baseURL }), key: undefined };
    const error = await failure(createAiSdkAdapter({ family: 'bedrock' }).generate(call));
    expect(error.kind).toBe('authentication');
    expect(fake.requests).toHaveLength(0);
  });

  it('calls an OpenAI-compatible local server without a key and without an Authorization header', async () => {
    fake = await startFakeOpenAiChat({ replies: [reply.fixture('groq-text.json', { vendor: 'groq' })] });
    const call = { ...attemptCall({ family: 'openai-compatible', baseUrl: fake.baseURL }), key: undefined };
    await createAiSdkAdapter({ family: 'openai-compatible' }).generate(call);
    expect(fake.lastRequest().headers.authorization).toBeUndefined();
  });
});
