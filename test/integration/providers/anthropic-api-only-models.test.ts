/**
 * The Claude models the built-in catalog serves from Anthropic's API only (Fable 5.2, 5.1 and 5, Opus 5, 4.8
 * and 4.7, Sonnet 5 and 4.6), over HTTP against a fake Anthropic: a request naming the catalog slug, or the
 * bare Anthropic id Claude Code sends (`claude-opus-4-8`), reaches the upstream as Anthropic's model id, and
 * `usage.cost` (JSON and the stream's last `message_delta`) is the model's published prices applied to the
 * upstream's usage: uncached input, output, cache reads, and five-minute and one-hour cache writes. Fast mode
 * (`speed: fast`) on Fable 5.2 costs its fast rates when Anthropic reports it served fast. `GET /models` lists
 * them with their 1M context and 128K output.
 */
import { describe, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { anthropicStep, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

// 10,000 uncached input, 2,000 output, 5,000 cache-read tokens, and 4,000 cache-written, 1,000 of them for an hour.
const USAGE = { input: 10_000, output: 2_000, cacheRead: 5_000, cacheWrite: 4_000, cacheWrite1h: 1_000 };
interface Rates {
  input: number;
  output: number;
  read: number;
  write: number;
  write1h: number;
}
const costOf = (rates: Rates) =>
  (USAGE.input * rates.input + USAGE.output * rates.output + USAGE.cacheRead * rates.read + 3_000 * rates.write + 1_000 * rates.write1h) / 1_000_000;

const setup = useVendorGateway({
  startUpstream: startFakeAnthropic,
  providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-api-only-0001" }`,
  startTimeoutMs: 120_000,
});

/** The answer's usage after one request for `model`, sent as JSON or streamed. */
async function usageOf(model: string, stream: boolean, extra: Record<string, unknown> = {}, reportedSpeed?: string): Promise<Record<string, unknown>> {
  setup.upstream.enqueue(anthropicStep({ text: 'Done.', usage: USAGE, ...(reportedSpeed ? { startUsage: { speed: reportedSpeed } } : {}) }));
  const body = messageBody(model, extra);
  if (!stream) {
    const call = await postMessage(setup.gateway, body);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    return call.body.usage as Record<string, unknown>;
  }
  const call = await streamMessage(setup.gateway, body);
  expect(call.status).toBe(200);
  const last = call.events.filter((event) => event.event === 'message_delta').at(-1);
  return (JSON.parse(last?.data ?? '{}') as { usage: Record<string, unknown> }).usage;
}

const MODELS = [
  { asked: 'anthropic/claude-fable-5.2', sent: 'claude-fable-5-2', rates: { input: 8, output: 40, read: 0.2, write: 10, write1h: 16 } },
  { asked: 'claude-fable-5-1', sent: 'claude-fable-5-1', rates: { input: 10, output: 50, read: 0.25, write: 12.5, write1h: 20 } },
  { asked: 'anthropic/claude-fable-5', sent: 'claude-fable-5', rates: { input: 10, output: 50, read: 1, write: 12.5, write1h: 20 } },
  { asked: 'claude-opus-5', sent: 'claude-opus-5', rates: { input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 } },
  { asked: 'claude-opus-4-8', sent: 'claude-opus-4-8', rates: { input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 } },
  { asked: 'anthropic/claude-opus-4.7', sent: 'claude-opus-4-7', rates: { input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 } },
  { asked: 'anthropic/claude-sonnet-5', sent: 'claude-sonnet-5', rates: { input: 2, output: 10, read: 0.2, write: 2.5, write1h: 4 } },
  { asked: 'claude-sonnet-4-6', sent: 'claude-sonnet-4-6', rates: { input: 3, output: 15, read: 0.3, write: 3.75, write1h: 6 } },
];

describe.each([false, true])('a request for each model (stream: %s)', (stream) => {
  it.each(MODELS)('$asked goes to Anthropic as $sent and costs its published prices', async ({ asked, sent, rates }) => {
    const usage = await usageOf(asked, stream);
    expect((setup.upstream.lastRequest()?.body as { model: string }).model).toBe(sent);
    expect(usage.cost as number).toBeCloseTo(costOf(rates), 12);
  });
});

describe.each([false, true])('fast mode on Claude Fable 5.2 (stream: %s)', (stream) => {
  it('sends speed fast and charges $16/$80 with the caching multipliers on top when Anthropic served it fast', async () => {
    const usage = await usageOf('anthropic/claude-fable-5.2', stream, { speed: 'fast' }, 'fast');
    expect(setup.upstream.lastRequest()?.body).toMatchObject({ model: 'claude-fable-5-2', speed: 'fast' });
    expect(usage.cost as number).toBeCloseTo(costOf({ input: 16, output: 80, read: 0.4, write: 20, write1h: 32 }), 12);
  });

  it('sends no speed for Claude Opus 4.8, whose fast mode the catalog leaves out, and charges the standard prices', async () => {
    const usage = await usageOf('anthropic/claude-opus-4.8', stream, { speed: 'fast' }, 'standard');
    expect(setup.upstream.lastRequest()?.body).not.toHaveProperty('speed');
    expect(usage.cost as number).toBeCloseTo(costOf({ input: 5, output: 25, read: 0.5, write: 6.25, write1h: 10 }), 12);
  });
});

describe('GET /models', () => {
  it('lists each model with its 1M context, 128K output and Anthropic endpoint', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${setup.gateway.api_key}` } });
    expect(response.status).toBe(200);
    const listed = new Map(((await response.json()) as ModelList).data.map((model) => [model.id, model]));
    for (const slug of ['claude-fable-5.2', 'claude-fable-5.1', 'claude-fable-5', 'claude-opus-5', 'claude-opus-4.8', 'claude-opus-4.7', 'claude-sonnet-5', 'claude-sonnet-4.6']) {
      const model = listed.get(`anthropic/${slug}`);
      expect(model, slug).toMatchObject({ context_length: 1_000_000, max_tokens: 128_000 });
      expect(model?.endpoints.map((endpoint) => [endpoint.provider, endpoint.model]), slug).toEqual([['anthropic', slug.replaceAll('.', '-')]]);
    }
  });
});
