/**
 * Claude on Bedrock with a one-hour cache breakpoint, on the built-in catalog's Bedrock endpoints: the
 * gateway sends Converse's `cachePoint` with `ttl: "1h"` (the AI SDK's Bedrock package passes the cache point
 * it is given as it is), Bedrock reports the write in `usage.cacheDetails` with its lifetime, and the write is
 * charged at the one-hour rate, twice the input price as on Anthropic's API. Before, the catalog's Bedrock
 * endpoints had no one-hour price, so such a write was charged as a five-minute one (1.25x input).
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { postMessage } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

const setup = useVendorGateway({
  startUpstream: startFakeBedrock,
  providerYaml: (bedrock) => `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIAONEHOURCACHE0001", secret_access_key: "one/hour/cache/secret/key/000000000000001" } }`,
});

// Bedrock's inputTokens excludes cache reads and writes, as Anthropic's input_tokens does.
const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadInputTokens: 0, cacheWriteInputTokens: 4000, totalTokens: 4110, cacheDetails: [{ inputTokens: 4000, ttl: '1h' }] };
const SYSTEM = [{ type: 'text', text: 'You review pull requests for the payments team.', cache_control: { type: 'ephemeral', ttl: '1h' } }];

describe('a one-hour cache write on Claude on Bedrock', () => {
  // USD per million tokens: input, output (Anthropic's list prices, which Bedrock's global profiles charge).
  it.each([
    { model: 'anthropic/claude-sonnet-4.5', input: 3, output: 15 },
    { model: 'anthropic/claude-opus-4.5', input: 5, output: 25 },
    { model: 'anthropic/claude-haiku-4.5', input: 1, output: 5 },
  ])('$model: sends ttl 1h and charges the write at twice the input price', async ({ model, input, output }) => {
    setup.upstream.enqueue(reply.json({ output: { message: { role: 'assistant', content: [{ text: 'Ready.' }] } }, stopReason: 'end_turn', usage: USAGE, metrics: { latencyMs: 80 } }));
    const call = await postMessage(setup.gateway, { model, max_tokens: 64, system: SYSTEM, messages: [{ role: 'user', content: 'Review this diff.' }], provider: { only: ['bedrock'] } });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = setup.upstream.lastRequest().body as { system: Record<string, unknown>[] };
    expect(sent.system).toEqual([{ text: SYSTEM[0]?.text }, { cachePoint: { type: 'default', ttl: '1h' } }]);
    const cost = (100 * input + 10 * output + 4000 * input * 2) / 1_000_000;
    const usage = call.body.usage as { cost: number; cache_creation: unknown };
    expect(usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 4000 });
    expect(usage.cost).toBeCloseTo(cost, 12);
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.cost).toBeCloseTo(cost, 12);
  });
});
