/**
 * Bedrock Converse reports its cache writes by lifetime (`usage.cacheDetails`, `5m` and `1h`): the gateway
 * gives them as Anthropic's `cache_creation` split and prices a one-hour write at its own rate. Before, every
 * write was priced as a five-minute one, and the client's usage had no split.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';

// USD per million tokens: input, output, five-minute and one-hour cache writes, cache reads.
const PRICING = { input: 3, output: 15, cache_write: 3.75, cache_write_1h: 6, cache_read: 0.3 };
// Bedrock's inputTokens excludes cache reads and writes, as Anthropic's input_tokens does.
const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadInputTokens: 200, cacheWriteInputTokens: 1500, totalTokens: 1810, cacheDetails: [{ inputTokens: 1000, ttl: '1h' }, { inputTokens: 500, ttl: '5m' }] };
const COST = (100 * PRICING.input + 10 * PRICING.output + 200 * PRICING.cache_read + 1000 * PRICING.cache_write_1h + 500 * PRICING.cache_write) / 1_000_000;
const EXPECTED_USAGE = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 200, cache_creation_input_tokens: 1500, cache_creation: { ephemeral_1h_input_tokens: 1000, ephemeral_5m_input_tokens: 500 } };

let bedrock: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  bedrock = await startFakeBedrock();
  const provider = `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIACACHETEST0000001", secret_access_key: "cache/secret/access/key/00000000000000001" } }`;
  const model = [
    '  test/bedrock-cache:',
    '    name: test/bedrock-cache',
    '    context_length: 200000',
    '    capabilities: { tools: true, caching: true }',
    '    endpoints:',
    `      - { provider: bedrock, model: anthropic.claude-cache-v1:0, pricing: ${JSON.stringify(PRICING).replace(/"/g, '').replace(/[:,]/g, '$& ')} }`,
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalogYaml([provider], [model]) });
});
afterAll(async () => {
  await gateway?.close();
  await bedrock?.close();
});

describe('Bedrock cache writes by lifetime', () => {
  it('a JSON answer: cache_creation split, one-hour writes at their price, recorded so', async () => {
    bedrock.enqueue(reply.json({ output: { message: { role: 'assistant', content: [{ text: 'Cached.' }] } }, stopReason: 'end_turn', usage: USAGE, metrics: { latencyMs: 80 } }));
    const call = await postMessage(gateway, messageBody('test/bedrock-cache'));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const usage = call.body.usage as Record<string, unknown>;
    expect(usage).toMatchObject(EXPECTED_USAGE);
    expect(usage.cost).toBeCloseTo(COST, 12);
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.cost).toBeCloseTo(COST, 12);
  });

  it('a stream: the same split and cost in message_delta', async () => {
    bedrock.enqueue(
      reply.events([
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Cached.' } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'end_turn' } },
        { metadata: { usage: USAGE, metrics: { latencyMs: 80 } } },
      ]),
    );
    const call = await streamMessage(gateway, messageBody('test/bedrock-cache'));
    expect(call.status).toBe(200);
    const delta = call.events.find((event) => event.event === 'message_delta');
    const usage = (JSON.parse(delta?.data ?? '{}') as { usage: Record<string, unknown> }).usage;
    expect(usage).toMatchObject({ output_tokens: 10, cost: expect.any(Number) });
    expect(usage.cost).toBeCloseTo(COST, 12);
  });
});
