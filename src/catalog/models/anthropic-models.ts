/**
 * Claude models on Anthropic's API and on Amazon Bedrock. Prices are Anthropic's list prices per million tokens
 * (platform.claude.com/docs/en/about-claude/pricing): 5-minute cache writes cost 1.25x input, 1-hour writes 2x,
 * cache reads 0.1x. On Sonnet 4.5 and Sonnet 4, prompts over 200K tokens (the 1M-context beta) pay the
 * long-context rates on every token; Opus 4.6 and the later models have 1M natively at one rate.
 *
 * Retirements: Anthropic's dates "apply to Anthropic-operated platforms" and Amazon Bedrock "set[s] its own
 * retirement schedule" (platform.claude.com/docs/en/about-claude/model-deprecations), so they are written on the
 * Anthropic endpoints only (`retires_at`, src/catalog/lifecycle.ts): the retired ones stay listed but are never
 * routed to, and the Bedrock endpoints keep serving the model. No stored AWS source gives a Bedrock end-of-life
 * date for Sonnet 4, Opus 4.1 or Sonnet 4.5, so none is recorded for them.
 */
import type { Capabilities, EndpointData, ModelData, Pricing } from '#src/catalog/catalog-types.ts';

export const CLAUDE: Capabilities = { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true };

// Bedrock's Converse API has no structured-output format for Claude.
// Its cache points take Anthropic's one-hour lifetime (`cachePoint.ttl: "1h"`, written tokens reported by
// lifetime in `usage.cacheDetails`) on the 4.5 generation and later, billed as on Anthropic's API at twice the
// input price (`cache_write_1h` of `claudePricing`). No source found says Bedrock takes the one-hour lifetime
// for Claude Sonnet 4 or Opus 4.1 (AWS and SDK docs name the 4.5 models and later; LiteLLM's price file, at
// e1d16f51, has a one-hour write price for Bedrock's Haiku/Sonnet/Opus 4.5, Opus 4.6 and Opus 5.5 ids, each 2x
// input, and none for `anthropic.claude-sonnet-4-20250514-v1:0` or `anthropic.claude-opus-4-1-20250805-v1:0`),
// so those endpoints keep the five-minute lifetime only and carry no one-hour price. Five-minute writes 1.25x
// and reads 0.1x input on Bedrock too (the same file; Opus 5.5's reads 0.05x as on Anthropic's API).
// @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html
const BEDROCK_LIMITS = { structured_output: false };

/**
 * What AWS charges over the global cross-region profile for an in-region (geo: `us.`, `eu.`) profile of
 * Claude 4.5 and later: 10% on every token price ("global cross-Region inference ... offers approximately 10%
 * savings on both input and output token pricing compared to geographic cross-Region inference").
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html
 */
const BEDROCK_REGIONAL_PREMIUM = 0.1;

/**
 * A Bedrock endpoint of Claude 4.5 or later on its global cross-region profile, at Anthropic's list prices
 * without the web search fee; the geo profiles in `regional` serve `us`/`europe` requests at the regional
 * premium, and only the regions given (a region without a verified profile id is not served).
 */
export function bedrockGlobal(global: string, regional: Partial<Record<'us' | 'europe', string>>, pricing: Pricing, maxOutputTokens: number): EndpointData {
  return {
    provider: 'bedrock',
    model: global,
    pricing,
    regional_models: regional,
    regional_premium: BEDROCK_REGIONAL_PREMIUM,
    regions: ['global', ...(Object.keys(regional) as ('us' | 'europe')[])],
    max_output_tokens: maxOutputTokens,
    capabilities: BEDROCK_LIMITS,
  };
}

/** Anthropic-style pricing from the input and output rates, with the standard cache multipliers. */
export function claudePricing(input: number, output: number): Pricing {
  return { input, output, cache_read: input / 10, cache_write: input * 1.25, cache_write_1h: input * 2 };
}

/**
 * Anthropic's fee for its own web search tool: $10 per 1,000 searches, on top of the tokens, at every speed and
 * prompt length (platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool). Not set on Bedrock's
 * endpoints: no per-search fee of Anthropic's web search is documented there.
 */
export const WEB_SEARCH_FEE = { web_search_request: 0.01 } as const;

/** Long-context (over 200K prompt tokens) pricing: input doubled, output 1.5x, caches scaled alike. */
function claudeLongContext(input: number, output: number): Pricing['long_context'] {
  return { threshold_tokens: 200_000, ...claudePricing(input * 2, output * 1.5) };
}

/**
 * The built-in Claude models. `max_output_tokens` is the synchronous Messages API's limit, which the gateway
 * lowers a larger `max_tokens` to: each model's "Max output" on its overview page
 * (platform.claude.com/docs/en/models/<model>/overview, checked 2026-11-28: 64K Sonnet 4.5, Opus 4.5 and
 * Haiku 4.5; 128K Opus 4.6 and the 5.5 models). Sonnet 4 and Opus 4.1 have no page there any more: their 64K
 * and 32K are the per-model limits of `@ai-sdk/anthropic` 4.0.68, which agree with the rest. Larger limits
 * come only with a beta (the Message Batches API's `output-300k-2026-03-24`), which leaves the client's value
 * unlowered (src/routing/output-limit-betas.ts).
 */
export const ANTHROPIC_MODELS: ModelData[] = [
  {
    id: 'anthropic/claude-sonnet-4.5',
    name: 'Claude Sonnet 4.5',
    context_length: 200_000,
    capabilities: CLAUDE,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        pricing: { ...WEB_SEARCH_FEE, ...claudePricing(3, 15), long_context: claudeLongContext(3, 15) },
        max_output_tokens: 64_000,
        // Deprecated on Anthropic's API on 2026-09-30, retiring 2026-11-30: the deprecations page's row
        // "claude-sonnet-4-5-20250929 | Deprecated | September 30, 2026 | November 30, 2026" and its section
        // "2026-09-30: Claude Sonnet 4.5 model" (replacement `claude-sonnet-5-5`), as quoted from
        // platform.claude.com/docs/en/about-claude/model-deprecations in public research notes of 2026-10; the
        // overview page (checked 2026-11-28) says "retires on November 30, 2026", and the Anthropic SDK's
        // `DEPRECATED_MODELS` gives both ids "November 30th, 2026".
        deprecated_at: '2026-09-30T00:00:00Z',
        retires_at: '2026-11-30T00:00:00Z',
      },
      bedrockGlobal(
        'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
        { us: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', europe: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0' },
        claudePricing(3, 15),
        64_000,
      ),
    ],
  },
  {
    id: 'anthropic/claude-sonnet-4',
    name: 'Claude Sonnet 4',
    context_length: 200_000,
    capabilities: { ...CLAUDE, structured_output: false },
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-sonnet-4-20250514',
        pricing: { ...WEB_SEARCH_FEE, ...claudePricing(3, 15), long_context: claudeLongContext(3, 15) },
        max_output_tokens: 64_000,
        // Retired on Anthropic's API: its release notes (platform.claude.com/docs/en/release-notes/overview)
        // announced the deprecation of `claude-sonnet-4-20250514` "with retirement on the Claude API scheduled for
        // June 15, 2026"; the deprecations page's entry for it is anchored `2026-04-14-claude-sonnet-4-and-claude-
        // opus-4-models` (as linked by Deepgram's 2026-07-01 changelog).
        deprecated_at: '2026-04-14T00:00:00Z',
        retires_at: '2026-06-15T00:00:00Z',
      },
      {
        // Anthropic's Bedrock model table lists Sonnet 4 with global, us, eu and apac profiles (no jp); the EU one serves
        // `europe`. Sonnet 4 predates the geo premium: LiteLLM's price file bills its `us.`, `eu.` and `apac.`
        // profiles at the list price. Unrestricted requests stay on the US profile, as before.
        provider: 'bedrock',
        model: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
        pricing: { ...claudePricing(3, 15), cache_write_1h: null },
        regional_models: { europe: 'eu.anthropic.claude-sonnet-4-20250514-v1:0' },
        regions: ['us', 'europe'],
        max_output_tokens: 64_000,
        capabilities: BEDROCK_LIMITS,
      },
    ],
  },
  // Claude Opus 4.6: a 1M-token context window and 128K output by default, one rate across the whole window.
  // Its overview page (platform.claude.com/docs/en/models/opus-4-6/overview, checked 2026-11-28): "Context
  // window: 1M tokens · Max output: 128K tokens · Input pricing: $5 / MTok"; the 1M window became generally
  // available on 2026-03-13 without the `context-1m-2025-08-07` beta and without the long-context premium
  // (which Sonnet 4.5 and Sonnet 4 keep, below). AWS's model card for Bedrock says the same: "Context window: 1M
  // tokens", "Max output tokens: 128K", lifecycle Active, "EOL no sooner than: Feb 5, 2027"
  // (docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-6.html).
  {
    id: 'anthropic/claude-opus-4.6',
    name: 'Claude Opus 4.6',
    context_length: 1_000_000,
    capabilities: CLAUDE,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-opus-4-6',
        pricing: { ...WEB_SEARCH_FEE, ...claudePricing(5, 25) },
        // No fast variant: Anthropic's pricing page (2026-09-26 copy) says fast mode is not available on Opus 4.6,
        // whose `speed: fast` requests "run at standard speed and are billed at standard rates" (the fast-mode
        // page: `usage.speed` says `standard`). It was 6x ($30/$150) while fast mode was in preview there.
        max_output_tokens: 128_000,
      },
      // Profiles from Anthropic's Bedrock model table (platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy:
      // `anthropic.claude-opus-4-6-v1`, global, us and eu profiles). No fast mode there; its 1M window at the
      // same rates (AWS's model card, above).
      bedrockGlobal('global.anthropic.claude-opus-4-6-v1', { us: 'us.anthropic.claude-opus-4-6-v1', europe: 'eu.anthropic.claude-opus-4-6-v1' }, claudePricing(5, 25), 128_000),
    ],
  },
  {
    id: 'anthropic/claude-opus-4.5',
    name: 'Claude Opus 4.5',
    context_length: 200_000,
    capabilities: CLAUDE,
    endpoints: [
      { provider: 'anthropic', model: 'claude-opus-4-5', pricing: { ...WEB_SEARCH_FEE, ...claudePricing(5, 25) }, max_output_tokens: 64_000 },
      bedrockGlobal(
        'global.anthropic.claude-opus-4-5-20251101-v1:0',
        { us: 'us.anthropic.claude-opus-4-5-20251101-v1:0', europe: 'eu.anthropic.claude-opus-4-5-20251101-v1:0' },
        claudePricing(5, 25),
        64_000,
      ),
    ],
  },
  {
    id: 'anthropic/claude-opus-4.1',
    name: 'Claude Opus 4.1',
    context_length: 200_000,
    capabilities: CLAUDE,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-opus-4-1',
        pricing: { ...WEB_SEARCH_FEE, ...claudePricing(15, 75) },
        max_output_tokens: 32_000,
        // Retired on Anthropic's API on 2026-08-05. No stored copy of Anthropic's deprecations page reaches its
        // row; the date is from migration guides that quote it (Totalum's of 2026-06-15: "its retirement date is
        // August 5, 2026"; multidotdev cli 0.0.135: "retired by Anthropic on August 5, 2026"), and a transcript of
        // the pricing page verified 2026-08-07 lists "Claude Opus 4.1 (retired, except on Bedrock and Google
        // Cloud)", as it does Sonnet 4. The announcement's day is unrecorded.
        retires_at: '2026-08-05T00:00:00Z',
      },
      {
        // Anthropic's Bedrock model table: Opus 4.1 has a `us.` profile only (no global, eu, jp or apac one).
        provider: 'bedrock',
        model: 'us.anthropic.claude-opus-4-1-20250805-v1:0',
        pricing: { ...claudePricing(15, 75), cache_write_1h: null },
        regions: ['us'],
        max_output_tokens: 32_000,
        capabilities: BEDROCK_LIMITS,
      },
    ],
  },
  {
    id: 'anthropic/claude-haiku-4.5',
    name: 'Claude Haiku 4.5',
    context_length: 200_000,
    capabilities: CLAUDE,
    endpoints: [
      { provider: 'anthropic', model: 'claude-haiku-4-5', pricing: { ...WEB_SEARCH_FEE, ...claudePricing(1, 5) }, max_output_tokens: 64_000 },
      bedrockGlobal(
        'global.anthropic.claude-haiku-4-5-20251001-v1:0',
        { us: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', europe: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0' },
        claudePricing(1, 5),
        64_000,
      ),
    ],
  },
];
