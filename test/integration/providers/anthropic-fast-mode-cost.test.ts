/**
 * Anthropic's fast mode, charged as Anthropic bills it, over HTTP on the built-in catalog: `speed: fast` on
 * Claude Opus 5.5 runs fast (the request carries `speed: "fast"` and the `fast-mode-2026-02-01` beta) and costs
 * its published fast rates ($8 in, $40 out, cache reads $0.40) when the upstream reports `usage.speed: "fast"`,
 * and the standard rates ($4/$20, reads $0.20) when it reports `"standard"`. Claude Opus 4.6, which Anthropic
 * serves and bills at standard speed whatever the request says, has no fast variant: its request goes without
 * `speed` and costs the standard rates. The client's `usage.cost` (JSON, and the stream's last `message_delta`)
 * and the generation record (`GET /generations/{id}`) must say the same. The fake speaks Anthropic's Messages
 * format and reports `speed` where Anthropic does: in the message's usage, or the stream's `message_start`.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { messageBody, postMessage, streamMessage, type MessageCall, type StreamCall } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

// 10,000 uncached input, 2,000 output and 5,000 cache-read tokens.
const USAGE = { input: 10_000, output: 2_000, cacheRead: 5_000 };
const cost = (input: number, output: number, read: number) => (USAGE.input * input + USAGE.output * output + USAGE.cacheRead * read) / 1_000_000;
const OPUS_5_5 = { fast: cost(8, 40, 0.4), standard: cost(4, 20, 0.2) };
const OPUS_4_6_STANDARD = cost(5, 25, 0.5);

const setup = useVendorGateway({
  startUpstream: startFakeAnthropic,
  providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-fast-mode-0001" }`,
  env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  startTimeoutMs: 120_000,
});

interface Answered {
  id: string;
  /** The answer's usage: the JSON body's, or the stream's last `message_delta`'s. */
  usage: Record<string, unknown>;
  /** `message_start`'s usage in a stream. */
  startUsage?: Record<string, unknown>;
}

async function ask(model: string, stream: boolean, reportedSpeed: string | undefined): Promise<Answered> {
  setup.upstream.enqueue(anthropicStep({ text: 'Done.', usage: USAGE, ...(reportedSpeed ? { startUsage: { speed: reportedSpeed } } : {}) }));
  const body = messageBody(model, { speed: 'fast' });
  if (!stream) {
    const call: MessageCall = await postMessage(setup.gateway, body);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    return { id: call.headers.get('request-id') ?? '', usage: call.body.usage as Record<string, unknown> };
  }
  const call: StreamCall = await streamMessage(setup.gateway, body);
  expect(call.status).toBe(200);
  const payloads = (name: string) => call.events.filter((event) => event.event === name).map((event) => JSON.parse(event.data) as Record<string, any>);
  return { id: call.headers.get('request-id') ?? '', usage: payloads('message_delta').at(-1)?.usage, startUsage: payloads('message_start')[0]?.message.usage };
}

describe.each([false, true])('fast mode on Claude Opus 5.5 (stream: %s)', (stream) => {
  it('sends speed fast with the beta and charges the fast rates when Anthropic reports it served fast', async () => {
    const answer = await ask('anthropic/claude-opus-5.5', stream, 'fast');
    const sent = setup.upstream.lastRequest();
    expect(sent?.body).toMatchObject({ model: 'claude-opus-5-5', speed: 'fast' });
    expect(sent?.headers['anthropic-beta']).toContain('fast-mode-2026-02-01');
    // The upstream's report reaches the client as sent.
    expect(stream ? answer.startUsage?.speed : answer.usage.speed).toBe('fast');
    // 10,000 x $8 + 2,000 x $40 + 5,000 x $0.40, per million: $0.162.
    expect(answer.usage.cost as number).toBeCloseTo(OPUS_5_5.fast, 12);
    expect((await generationOf(setup.gateway, answer.id)).cost as number).toBeCloseTo(OPUS_5_5.fast, 12);
  });

  it('charges the standard rates when Anthropic reports it served the fast request at standard speed', async () => {
    const answer = await ask('anthropic/claude-opus-5.5', stream, 'standard');
    expect(setup.upstream.lastRequest()?.body).toMatchObject({ speed: 'fast' });
    // 10,000 x $4 + 2,000 x $20 + 5,000 x $0.20, per million: $0.081.
    expect(answer.usage.cost as number).toBeCloseTo(OPUS_5_5.standard, 12);
    expect((await generationOf(setup.gateway, answer.id)).cost as number).toBeCloseTo(OPUS_5_5.standard, 12);
  });
});

describe.each([false, true])('speed fast on Claude Opus 4.6, which has no fast mode (stream: %s)', (stream) => {
  it('runs at standard speed, asks the upstream for no speed, and charges the standard rates', async () => {
    const answer = await ask('anthropic/claude-opus-4.6', stream, 'standard');
    expect(setup.upstream.lastRequest()?.body).not.toHaveProperty('speed');
    // 10,000 x $5 + 2,000 x $25 + 5,000 x $0.50, per million: $0.1025 (it was charged six times that).
    expect(answer.usage.cost as number).toBeCloseTo(OPUS_4_6_STANDARD, 12);
    expect((await generationOf(setup.gateway, answer.id)).cost as number).toBeCloseTo(OPUS_4_6_STANDARD, 12);
  });
});

describe.each([false, true])("a server-side tool loop's steps on Claude Opus 5.5 with speed fast (stream: %s)", (stream) => {
  it('prices each step at the speed its upstream reports: the first served at standard speed, the second fast', async () => {
    const step = { input: 1_000, output: 100 };
    setup.upstream.enqueue(
      anthropicStep({ text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: step, startUsage: { speed: 'standard' } }),
      anthropicStep({ text: 'It is noon.', usage: step, startUsage: { speed: 'fast' } }),
    );
    const body = messageBody('anthropic/claude-opus-5.5', { speed: 'fast', tools: [{ type: 'gateway:datetime' }] });
    const call = stream ? await streamMessage(setup.gateway, body, { 'x-gateway-metadata': 'enabled' }) : await postMessage(setup.gateway, body, { 'x-gateway-metadata': 'enabled' });
    expect(call.status).toBe(200);
    expect(setup.upstream.requests.map((request) => (request.body as { speed?: string }).speed)).toEqual(['fast', 'fast']);
    const usage =
      'events' in call
        ? (JSON.parse(call.events.filter((event) => event.event === 'message_delta').at(-1)?.data ?? '{}') as { usage: Record<string, unknown> }).usage
        : (call.body.usage as Record<string, unknown>);
    // 1,000 x $4 + 100 x $20, then 1,000 x $8 + 100 x $40, per million.
    const expected = (1_000 * 4 + 100 * 20 + 1_000 * 8 + 100 * 40) / 1_000_000;
    expect(usage.cost as number).toBeCloseTo(expected, 12);
    expect((await generationOf(setup.gateway, call.headers.get('request-id') ?? '')).cost as number).toBeCloseTo(expected, 12);
  });
});
