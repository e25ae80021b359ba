/**
 * OpenAI's priority processing (the catalog's `speed: fast` on OpenAI), charged as OpenAI bills it, over HTTP
 * on the built-in catalog: a `speed: fast` request to GPT-5 goes out with `service_tier: "priority"`; the answer
 * names the tier that ran it, and one OpenAI sent to standard processing (`service_tier: "default"`, "billed at
 * standard rates", openai.com/api-fast-mode) costs GPT-5's standard rates ($1.25/$10, cached $0.125) where a
 * priority one costs the priority rates ($2.5/$20, cached $0.25). The client's `usage.cost` and `usage.speed`
 * (JSON, and the stream's `message_delta`) and the generation record say the same. The fake replays the
 * `openai-phase.1` recording of OpenAI's Responses API with only its `service_tier` changed.
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeOpenAiResponses } from '#test/helpers/fake-upstreams/index.ts';
import { messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

// The recording's counts: the JSON answer read 7,243 prompt tokens (3,072 cached) and wrote 423; the stream 7,112 (3,072) and 463.
const COUNTS = { json: { input: 7_243 - 3_072, cached: 3_072, output: 423 }, stream: { input: 7_112 - 3_072, cached: 3_072, output: 463 } };
const RATES = { fast: { input: 2.5, cached: 0.25, output: 20 }, standard: { input: 1.25, cached: 0.125, output: 10 } };
const costOf = (counts: (typeof COUNTS)['json'], rates: (typeof RATES)['fast']) => (counts.input * rates.input + counts.cached * rates.cached + counts.output * rates.output) / 1_000_000;

const setup = useVendorGateway({
  startUpstream: startFakeOpenAiResponses,
  providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-priority-0001" }`,
  env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  startTimeoutMs: 120_000,
});

/** The recording with OpenAI's answer naming `tier` (the JSON body, or the stream's `response.completed`). */
function recordedAnswer(stream: boolean, tier: string) {
  if (!stream) return reply.json({ ...readFixture<Record<string, unknown>>('openai-responses', 'openai-phase.1'), service_tier: tier });
  const events = readChunks<{ type: string; response?: Record<string, unknown> }>('openai-responses', 'openai-phase.1');
  return reply.events(events.map((event) => (event.type === 'response.completed' ? { ...event, response: { ...event.response, service_tier: tier } } : event)));
}

describe.each([false, true])('speed fast on GPT-5 (stream: %s)', (stream) => {
  it.each([
    ['priority', 'fast'],
    ['default', 'standard'],
  ] as const)('an answer OpenAI ran at the %s tier is charged the %s rates', async (tier, speed) => {
    setup.upstream.enqueue(recordedAnswer(stream, tier));
    const body = messageBody('openai/gpt-5', { speed: 'fast' });
    let usage: Record<string, unknown>;
    let id: string;
    if (stream) {
      const call = await streamMessage(setup.gateway, body);
      expect(call.status).toBe(200);
      usage = (JSON.parse(call.events.filter((event) => event.event === 'message_delta').at(-1)?.data ?? '{}') as { usage: Record<string, unknown> }).usage;
      id = call.headers.get('request-id') ?? '';
    } else {
      const call = await postMessage(setup.gateway, body);
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      usage = call.body.usage as Record<string, unknown>;
      id = call.headers.get('request-id') ?? '';
    }
    expect(setup.upstream.lastRequest()?.body).toMatchObject({ model: 'gpt-5', service_tier: 'priority' });
    expect(usage.speed).toBe(speed);
    const expected = costOf(stream ? COUNTS.stream : COUNTS.json, RATES[speed]);
    expect(usage.cost as number).toBeCloseTo(expected, 12);
    expect((await generationOf(setup.gateway, id)).cost as number).toBeCloseTo(expected, 12);
  });
});
