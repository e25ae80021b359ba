/**
 * A request's reserved worst case includes what Anthropic bills beyond the answer's tokens where the request
 * bounds it: `max_uses` searches of an Anthropic web search tool at the endpoint's `pricing.web_search_request`,
 * and a compaction's second reading of the prompt (`context_management.edits` of type `compact_*`). Driven
 * over HTTP with two requests of one key: the first is held at the upstream with its reservation open, and
 * the second is refused (429, the credit nearly reached) only if the first reserved its fees. Before, the
 * reservation left them out and the second was admitted, so concurrent requests could overshoot the credit
 * limit by more than one request's worst case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml } from '#test/integration/routing/routing-support.ts';
import { issueLimitedKey, postWithKey } from './limits-support.ts';

const PER_SEARCH = 0.01;
/** USD per million tokens (in, out) of `test/searching` and of `test/compacting`. */
const SEARCHING = { input: 1, output: 2 };
const COMPACTING = { input: 1, output: 1 };

let upstream: FakeUpstream;
let gateway: TestGateway;

const modelYaml = (slug: string, prices: string) =>
  [
    `  ${slug}:`,
    `    name: ${slug}`,
    '    context_length: 200000',
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    `    endpoints: [{ provider: alpha, model: up-model, pricing: { ${prices} } }]`,
  ].join('\n');

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', upstream)],
      [
        modelYaml('test/searching', `input: ${SEARCHING.input}, output: ${SEARCHING.output}, web_search_request: ${PER_SEARCH}`),
        modelYaml('test/compacting', `input: ${COMPACTING.input}, output: ${COMPACTING.output}`),
      ],
    ),
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Sends `held` with a new key of credit `limit` and holds it at the upstream; then sends a small request of the same key. */
async function secondWhileHeld(limit: number, held: Record<string, unknown>): Promise<{ first: number; second: { status: number; body: Record<string, any> } }> {
  const { first, second } = await whileHeld(limit, held);
  return { first: (await first).status, second };
}

async function whileHeld(limit: number, held: Record<string, unknown>): Promise<{ first: ReturnType<typeof postWithKey>; second: { status: number; body: Record<string, any> } }> {
  const issued = await issueLimitedKey(gateway, { limit });
  // A round starts clean: a refused second request leaves its reply queued.
  upstream.clear();
  let release!: () => void;
  upstream.enqueue(reply.fixture('anthropic-text', { until: new Promise<void>((resolve) => (release = resolve)) }));
  upstream.enqueue(reply.fixture('anthropic-text'));
  const first = postWithKey(gateway, issued.key, held);
  try {
    await expect.poll(() => upstream.requests.length, { timeout: 20_000 }).toBe(1);
    const second = await postWithKey(gateway, issued.key, { model: 'test/searching', max_tokens: 16 });
    return { first, second };
  } finally {
    release();
  }
}

describe('the worst case a request reserves', () => {
  // Tokens: a few hundred input (the tool's definition included) and 1,024 output at $1 and $2 a million,
  // under $0.003; three searches add $0.03. The limit lies between the two.
  it('includes max_uses searches of an Anthropic web search tool at the per-search price', async () => {
    const search = { model: 'test/searching', max_tokens: 1024, messages: [{ role: 'user', content: 'What is the weather in Paris today?' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] };
    const { first, second } = await secondWhileHeld(0.02, search);
    expect(first).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(429);
    expect(second.body.error.message).toMatch(/^Credit limit nearly reached for this key: 0 of 0\.02 USD spent in total and 0\.03[0-9]* reserved by requests in progress; retry in 1 s$/);
  });

  it('leaves out the searches of a web search tool without max_uses, which nothing bounds', async () => {
    const search = { model: 'test/searching', max_tokens: 1024, messages: [{ role: 'user', content: 'What is the weather in Paris today?' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }] };
    const { first, second } = await secondWhileHeld(0.02, search);
    expect(first).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
  });

  // 40,000 characters are 10,000 estimated input tokens: $0.01 at $1 a million, read twice with compaction.
  it('includes a compaction iteration’s reading of the whole prompt', async () => {
    const prompt = 'word '.repeat(8_000);
    const compacting = {
      model: 'test/compacting',
      max_tokens: 16,
      messages: [{ role: 'user', content: prompt }],
      context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 } }] },
    };
    const { first, second } = await secondWhileHeld(0.015, compacting);
    expect(first).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(429);
    const plain = await secondWhileHeld(0.015, { ...compacting, context_management: undefined });
    expect(plain.second.status, JSON.stringify(plain.second.body)).toBe(200);
  });
});
