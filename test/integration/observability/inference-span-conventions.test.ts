/**
 * Each attempt's CLIENT span is an inference call of the OpenTelemetry GenAI conventions
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/client-inference.md) and carries what they ask of
 * one: the conversation id where the request has one (Conditionally Required), the stream flag on a streamed
 * call (Conditionally Required), `top_k` and the output type when asked (Conditionally Required), the other
 * request parameters and the requested reasoning level (Recommended), and a finish reason for every call,
 * `error` for one that failed without one. The client is the Anthropic SDK; Alpha answers 529 (or 500) and
 * Beta the recorded Anthropic answer, and a tool loop's two scripted steps are each one call. The
 * OTLP/protobuf export is decoded as a collector would, and no span carries a deprecated GenAI name.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import type { CaptureServer } from '#test/helpers/capture-server.ts';
import type { DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { deprecatedGenAiAttributes } from '#test/helpers/genai-deprecated-names.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { attemptSpans, startTracedGateway, type RecordsGateway } from './observability-support.ts';
import { receivedSpans } from './destination-receivers.ts';

let setup: RecordsGateway;
let client: Anthropic;
let collector: CaptureServer;

const SESSION = 'conversation-41';
// What the request asks of every call it makes: each attempt's span says it again.
const body = {
  model: 'test/primary',
  max_tokens: 300,
  temperature: 0.4,
  top_k: 20,
  stop_sequences: ['###'],
  output_config: { effort: 'medium', format: { type: 'json_schema', schema: { type: 'object', properties: { answer: { type: 'string' } } } } },
  messages: [{ role: 'user' as const, content: 'Hello there' }],
  session_id: SESSION,
  ...ALPHA_FIRST,
};
const ASKED = {
  'gen_ai.conversation.id': SESSION,
  'gen_ai.request.max_tokens': 300,
  'gen_ai.request.temperature': 0.4,
  'gen_ai.request.top_k': 20,
  'gen_ai.request.stop_sequences': ['###'],
  'gen_ai.request.reasoning.level': 'medium',
  'gen_ai.output.type': 'json',
};

type Params = Anthropic.MessageCreateParamsNonStreaming;

/** The generation's span and its attempts' spans, once the attempts have arrived. */
async function spansOf(id: string, attempts: number): Promise<{ generation: DecodedSpan; calls: DecodedSpan[]; all: DecodedSpan[] }> {
  const calls = await attemptSpans(setup.gateway, collector, id, attempts);
  const all = receivedSpans(collector).filter((span) => span.traceId === calls[0]!.traceId);
  const generation = all.find((span) => span.attributes['switchboard.generation.id'] === id);
  expect(generation).toBeDefined();
  return { generation: generation!, calls, all };
}

beforeAll(async () => {
  ({ setup, client, collector } = await startTracedGateway());
}, 60_000);
afterAll(async () => {
  await setup?.close();
  await collector?.close();
});

describe('inference spans under the GenAI conventions', () => {
  it.each([
    ['JSON', false],
    ['a stream', true],
  ])('%s after a failover: both calls carry the request they sent; the failed one finish reason error', async (_case, stream) => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    let id: string;
    if (stream) {
      const { data, response } = await client.messages.create({ ...(body as unknown as Params), stream: true }).withResponse();
      for await (const _event of data);
      id = response.headers.get('x-generation-id') ?? '';
    } else {
      id = (await client.messages.create(body as unknown as Params).withResponse()).response.headers.get('x-generation-id') ?? '';
    }

    const { generation, calls, all } = await spansOf(id, 2);
    const [failed, served] = calls;
    const streamed = stream ? { 'gen_ai.request.stream': true } : {};
    for (const span of [generation, failed, served]) expect(span?.attributes).toMatchObject({ ...ASKED, ...streamed });
    // The conventions set the stream flag only on a stream: unset reads as not streaming.
    if (!stream) for (const span of [generation, failed, served]) expect(span?.attributes).not.toHaveProperty(['gen_ai.request.stream']);
    // A call that failed with no finish reason ended abnormally: `error` holds its place.
    expect(failed?.attributes).toMatchObject({ 'error.type': 'overloaded', 'gen_ai.response.finish_reasons': ['error'] });
    expect(served?.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    expect(generation.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    expect(deprecatedGenAiAttributes(all)).toEqual([]);
  });

  it('a request no call answered: every call and the generation finish reason error', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.error(500));
    const failure = await client.messages.create(body as unknown as Params).withResponse().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    const id = (failure as InstanceType<typeof Anthropic.APIError>).headers?.get('x-generation-id') ?? '';
    expect(id).not.toBe('');

    const { generation, calls } = await spansOf(id, 2);
    expect(calls.map((span) => [span.attributes['error.type'], span.attributes['gen_ai.response.finish_reasons'], span.attributes['gen_ai.conversation.id']])).toEqual([
      ['overloaded', ['error'], SESSION],
      ['server_error', ['error'], SESSION],
    ]);
    expect(generation.attributes['gen_ai.response.finish_reasons']).toEqual(['error']);
  });

  it("a tool loop: each step's call carries the request's conversation and reasoning level, and its own finish reason", async () => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 20, output: 5 } }),
      anthropicStep({ text: 'It is noon.', usage: { input: 30, output: 4 } }),
    );
    const { output_config: _format, ...plain } = body;
    const request = { ...plain, output_config: { effort: 'low' }, tools: [{ type: 'gateway:datetime' }] };
    const { response } = await client.messages.create(request as unknown as Params).withResponse();
    const id = response.headers.get('x-generation-id') ?? '';

    const { calls, all } = await spansOf(id, 2);
    expect(calls.map((span) => [span.attributes['gen_ai.conversation.id'], span.attributes['gen_ai.request.reasoning.level'], span.attributes['gen_ai.request.max_tokens'], span.attributes['gen_ai.response.finish_reasons']])).toEqual([
      [SESSION, 'low', 300, ['tool_use']],
      [SESSION, 'low', 300, ['end_turn']],
    ]);
    // No output format asked: no output type.
    for (const span of calls) expect(span.attributes).not.toHaveProperty(['gen_ai.output.type']);
    expect(deprecatedGenAiAttributes(all)).toEqual([]);
  });
});
