/**
 * Bedrock's regional premium over HTTP: Claude Sonnet 4.5 from the built-in catalog on a gateway whose only
 * provider is Amazon Bedrock. Without a data region the call goes to the global cross-region profile at the
 * list price; a `us` or `europe` request goes to that region's geo profile (`us.`, `eu.`), which AWS bills
 * 10% higher on every token price, and its `usage.cost` says so. `GET /models` shows those prices as the
 * endpoint's `regional_pricing`.
 */
import { describe, expect, it } from 'vitest';
import { askInRegion, listedEndpoints, USAGE, useBedrockOnlyGateway } from '#test/integration/routing/bedrock-region-support.ts';

const MODEL = 'anthropic/claude-sonnet-4.5';
// Claude Sonnet 4.5's list prices: $3 input and $15 output per million tokens.
const LIST_COST = (USAGE.input * 3 + USAGE.output * 15) / 1e6;

const setup = useBedrockOnlyGateway();

describe('Bedrock regional profiles of Claude Sonnet 4.5', () => {
  it.each([
    { region: undefined, profile: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0', cost: LIST_COST },
    { region: 'us', profile: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', cost: LIST_COST * 1.1 },
    { region: 'europe', profile: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0', cost: LIST_COST * 1.1 },
  ])('region $region runs on $profile and costs $cost', async ({ region, profile, cost }) => {
    const call = await askInRegion(setup, MODEL, region);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(setup.upstream.requests.map((request) => request.params.modelId)).toEqual([profile]);
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number };
    expect([usage.input_tokens, usage.output_tokens]).toEqual([USAGE.input, USAGE.output]);
    expect(usage.cost).toBeCloseTo(cost, 12);
  });

  it('GET /models lists the regional prices beside the global ones', async () => {
    const endpoints = await listedEndpoints(setup.gateway, MODEL);
    const bedrock = endpoints.find((endpoint) => endpoint.provider === 'bedrock');
    expect(bedrock?.pricing).toMatchObject({ input: 3, output: 15 });
    for (const region of ['us', 'europe']) {
      const regional = bedrock?.regional_pricing?.[region];
      expect(regional?.input, region).toBeCloseTo(3.3, 12);
      expect(regional?.output, region).toBeCloseTo(16.5, 12);
      expect(regional?.cache_read, region).toBeCloseTo(0.33, 12);
      expect(regional?.cache_write, region).toBeCloseTo(4.125, 12);
      expect(regional?.cache_write_1h, region).toBeCloseTo(6.6, 12);
    }
    const anthropic = endpoints.find((endpoint) => endpoint.provider === 'anthropic');
    expect(anthropic === undefined || anthropic.regional_pricing === undefined).toBe(true);
  });
});
