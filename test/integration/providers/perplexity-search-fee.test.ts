/**
 * Perplexity's per-request search fee over HTTP: Sonar bills every request by the search context size it
 * reports (`usage.search_context_size`: $5, $8, $12 per 1,000 requests at low, medium, high) on top of the
 * tokens. The answer's `usage.cost` and its generation record include that fee, JSON and streamed, and an
 * answer that reports no size pays the `low` fee, Perplexity's default. A key's credit reservation counts the
 * `high` fee, so a second request waits while the first is in progress. The fake speaks Perplexity's
 * OpenAI-compatible Chat Completions format with its own usage fields.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, type ReplyDelivery } from '#test/helpers/fake-upstreams/index.ts';
import { issueLimitedKey, postWithKey } from '#test/integration/limits/limits-support.ts';
import { messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

const MODEL = 'perplexity/sonar';
const ANSWER = 'The tallest mountain is Mount Everest [1].';
// Sonar: $1 per million input and output tokens, plus the request fee.
const TOKENS = { prompt: 12, completion: 40 };
const TOKEN_COST = (TOKENS.prompt + TOKENS.completion) / 1e6;
const FEES = { low: 0.005, medium: 0.008, high: 0.012 };

function perplexityUsage(size: keyof typeof FEES | null): Record<string, unknown> {
  const usage: Record<string, unknown> = { prompt_tokens: TOKENS.prompt, completion_tokens: TOKENS.completion, total_tokens: TOKENS.prompt + TOKENS.completion };
  if (size) {
    usage.search_context_size = size;
    usage.cost = { input_tokens_cost: 0, output_tokens_cost: 0, request_cost: FEES[size], total_cost: FEES[size] + TOKEN_COST };
  }
  return usage;
}

/** A Sonar answer as Perplexity sends it: a chat completion with its citations and search results. */
function sonarAnswer(size: keyof typeof FEES | null, delivery: ReplyDelivery = {}) {
  const envelope = { id: 'pplx-0001', model: 'sonar', created: 1764200000, citations: ['https://example.com/everest'], search_results: [{ title: 'Everest', url: 'https://example.com/everest' }] };
  const json = {
    ...envelope,
    object: 'chat.completion',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: ANSWER } }],
    usage: perplexityUsage(size),
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ ...envelope, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: ANSWER.slice(0, 20) }, null), chunk({ content: ANSWER.slice(20) }, null), { ...chunk({}, 'stop'), usage: perplexityUsage(size) }];
  return reply.either(reply.json(json, delivery), reply.events(events, delivery));
}

const setup = useVendorGateway({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (upstream) => `  perplexity: { base_url: "${upstream.url}", api_key: "pplx-shared-fee-0001" }`,
});

async function lastRecordCost(): Promise<number> {
  for (let waited = 0; waited < 100; waited += 1) {
    const response = await fetch(`${setup.gateway.baseUrl}/generations?limit=1`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } });
    const [record] = ((await response.json()) as { data: { id: string; cost: number }[] }).data;
    if (record && record.id !== seen) {
      seen = record.id;
      return record.cost;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no new generation record');
}
let seen: string | undefined;

describe('Perplexity Sonar request fee', () => {
  it.each([
    { size: 'low', fee: FEES.low },
    { size: 'medium', fee: FEES.medium },
    { size: 'high', fee: FEES.high },
    // No size reported: Perplexity's default, low.
    { size: null, fee: FEES.low },
  ] as const)('a JSON answer with search context $size costs its tokens plus $fee', async ({ size, fee }) => {
    setup.upstream.enqueue(sonarAnswer(size));
    const call = await postMessage(setup.gateway, messageBody(MODEL));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number; search_context_size?: string };
    expect([usage.input_tokens, usage.output_tokens, usage.search_context_size]).toEqual([TOKENS.prompt, TOKENS.completion, size ?? undefined]);
    expect(usage.cost).toBeCloseTo(TOKEN_COST + fee, 12);
    expect(await lastRecordCost()).toBeCloseTo(TOKEN_COST + fee, 12);
  });

  it('a streamed answer reports the fee in its final usage and its record', async () => {
    setup.upstream.enqueue(sonarAnswer('medium'));
    const call = await streamMessage(setup.gateway, messageBody(MODEL, { stream: true }));
    const delta = call.events.filter((event) => event.event === 'message_delta').at(-1);
    const usage = (JSON.parse(delta?.data ?? '{}') as { usage?: { cost?: number; search_context_size?: string } }).usage;
    expect(usage?.search_context_size).toBe('medium');
    expect(usage?.cost).toBeCloseTo(TOKEN_COST + FEES.medium, 12);
    expect(await lastRecordCost()).toBeCloseTo(TOKEN_COST + FEES.medium, 12);
  });
});

describe('the worst case a Sonar request reserves', () => {
  // Tokens cost well under a cent; the high fee alone ($0.012) is over the key's $0.01 of credit.
  it('includes the high request fee: a second request of the key waits while the first holds its reservation', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 0.01 });
    let release!: () => void;
    setup.upstream.enqueue(sonarAnswer('low', { until: new Promise<void>((resolve) => (release = resolve)) }), sonarAnswer('low'));
    const first = postWithKey(setup.gateway, issued.key, messageBody(MODEL));
    try {
      await expect.poll(() => setup.upstream.requests.length, { timeout: 20_000 }).toBe(1);
      const second = await postWithKey(setup.gateway, issued.key, messageBody(MODEL));
      expect(second.status, JSON.stringify(second.body)).toBe(429);
      expect(second.body.error.message).toMatch(/^Credit limit nearly reached for this key: 0 of 0\.01 USD spent in total and 0\.012[0-9]* reserved by requests in progress; retry in 1 s$/);
    } finally {
      release();
    }
    expect((await first).status).toBe(200);
  });
});
