/**
 * Claude on a Bedrock-only gateway, restricted to Europe. Each model of the 5.5 generation has an `eu.`
 * cross-region inference profile, so a `europe` request is served there (not refused for want of a European
 * endpoint) and costs that geo profile's price, 10% over the global profile's list price; a `us` request keeps
 * its `us.` profile and an unrestricted one the `global.` profile, at the list price. Claude Sonnet 4 has an
 * `eu.` profile too, at its list price like its `us.` one (it predates the geo premium), and keeps serving
 * unrestricted requests from the `us.` profile.
 */
import { describe, expect, it } from 'vitest';
import { askInRegion, listedEndpoints, USAGE, useBedrockOnlyGateway } from '#test/integration/routing/bedrock-region-support.ts';

const setup = useBedrockOnlyGateway();

// List prices per million tokens (input, output) and each model's Bedrock profile ids.
const MODELS = [
  { slug: 'anthropic/claude-opus-5.5', id: 'claude-opus-5-5', input: 4, output: 20 },
  { slug: 'anthropic/claude-sonnet-5.5', id: 'claude-sonnet-5-5', input: 2, output: 10 },
  { slug: 'anthropic/claude-haiku-5.5', id: 'claude-haiku-5-5', input: 0.1, output: 0.5 },
];
const CASES = MODELS.flatMap((model) => {
  const list = (USAGE.input * model.input + USAGE.output * model.output) / 1e6;
  return [
    { ...model, region: 'europe', profile: `eu.anthropic.${model.id}`, cost: list * 1.1 },
    { ...model, region: 'us', profile: `us.anthropic.${model.id}`, cost: list * 1.1 },
    { ...model, region: undefined, profile: `global.anthropic.${model.id}`, cost: list },
  ];
});

describe('Bedrock profiles of the Claude 5.5 generation by data region', () => {
  it.each(CASES)('$slug in region $region runs on $profile', async ({ slug, region, profile, cost }) => {
    const call = await askInRegion(setup, slug, region);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(setup.upstream.requests.map((request) => request.params.modelId)).toEqual([profile]);
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number };
    expect([usage.input_tokens, usage.output_tokens]).toEqual([USAGE.input, USAGE.output]);
    expect(usage.cost).toBeCloseTo(cost, 12);
  });

  it('GET /models lists a European price for each of them', async () => {
    for (const { slug, input, output } of MODELS) {
      const bedrock = (await listedEndpoints(setup.gateway, slug)).find((endpoint) => endpoint.provider === 'bedrock');
      expect(bedrock?.regions, slug).toEqual(expect.arrayContaining(['global', 'us', 'europe']));
      expect(bedrock?.regional_pricing?.europe?.input, slug).toBeCloseTo(input * 1.1, 12);
      expect(bedrock?.regional_pricing?.europe?.output, slug).toBeCloseTo(output * 1.1, 12);
    }
  });
});

describe('Bedrock profiles of Claude Sonnet 4 by data region', () => {
  const list = (USAGE.input * 3 + USAGE.output * 15) / 1e6;
  it.each([
    { region: 'europe', profile: 'eu.anthropic.claude-sonnet-4-20250514-v1:0' },
    { region: 'us', profile: 'us.anthropic.claude-sonnet-4-20250514-v1:0' },
    { region: undefined, profile: 'us.anthropic.claude-sonnet-4-20250514-v1:0' },
  ])('region $region runs on $profile at the list price', async ({ region, profile }) => {
    const call = await askInRegion(setup, 'anthropic/claude-sonnet-4', region);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(setup.upstream.requests.map((request) => request.params.modelId)).toEqual([profile]);
    expect((call.body.usage as { cost: number }).cost).toBeCloseTo(list, 12);
  });
});
