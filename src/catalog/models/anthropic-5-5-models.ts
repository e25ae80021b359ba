/**
 * The Claude 5.5 generation on Anthropic's API and on Amazon Bedrock: what Claude Code picks by itself (its
 * default, `claude-opus-5-5`, and its `sonnet` and `haiku` aliases). Prices per million tokens; the Bedrock
 * endpoints and the shared helpers are those of ./anthropic-models.ts.
 */
import type { ModelData, Pricing } from '#src/catalog/catalog-types.ts';
import { bedrockGlobal, CLAUDE, claudePricing, WEB_SEARCH_FEE } from './anthropic-models.ts';

/**
 * Claude Sonnet 5.5's token prices: $2/$10, writes $2.50 and $4, and cache hits at 0.05x input ($0.10), not the
 * usual 0.1x. Anthropic cut them from $0.20 on 2026-10-07: its pricing page's "Model pricing" row "Claude Sonnet
 * 5.5 | $2 / MTok | $2.50 / MTok | $4 / MTok | $0.10 / MTok<sup>2</sup> | $10 / MTok" with the note "Cache hits
 * and refreshes on Claude Opus 5.5 and Claude Sonnet 5.5 are priced at 0.05x the base input price", as quoted
 * with access dates 2026-10-08 and 2026-10-09 in public price tables, and synaps 0.10.2's pricing module
 * (docs.rs/synaps/0.10.2/synaps_cli/pricing, from platform.claude.com/docs/en/about-claude/pricing: "Sonnet 5.5 |
 * $2.00 | $10.00 | 0.05x"). The stored copies of Anthropic's own Sonnet 5.5 overview page still say $0.20, but
 * predate the cut (their lineup has Haiku 4.5, not Haiku 5.5 of 2026-10-07). Bedrock's global profile takes the
 * list prices, as for Opus 5.5 (whose reads are 0.05x there too); Apify's Bedrock rate card agrees at the geo
 * profile: Sonnet 5.5 "$2.20 ... $0.11" input and cache read (apify.com/apify/aws-bedrock-proxy).
 * @see https://platform.claude.com/docs/en/about-claude/pricing
 */
const SONNET_5_5: Pricing = { ...claudePricing(2, 10), cache_read: 0.1 };

// Claude Haiku 5.5's token prices: prompts over 100K tokens pay five times every rate, caches included.
const HAIKU_5_5: Pricing = { ...claudePricing(0.1, 0.5), long_context: { threshold_tokens: 100_000, ...claudePricing(0.5, 2.5) } };

/**
 * Claude Opus 5.5's fast mode (`speed: fast`) on Anthropic's API: $8 in, $40 out "across the full context
 * window", prompt caching multipliers "on top of fast mode pricing" (its cache reads at 0.05x, so $0.40; writes
 * 1.25x and 2x). Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing, fast mode pricing;
 * its copy fetched 2026-09-26). Fast mode is on Anthropic's own API only, so no Bedrock endpoint has one.
 */
const OPUS_5_5_FAST: Pricing = { ...WEB_SEARCH_FEE, ...claudePricing(8, 40), cache_read: 0.4 };

/** The built-in Claude 5.5 models, listed after the other Claude models of ./anthropic-models.ts. */
export const ANTHROPIC_5_5_MODELS: ModelData[] = [
  // The 5.5 generation: what Claude Code picks by itself (its default and its opus, sonnet and haiku aliases
  // send these ids). Context 1M and output 128K natively, no long-context beta; prices from each model's
  // overview page (platform.claude.com/docs/en/models/<model>/overview).
  // Bedrock profiles: each of the three has `global.`, `us.`, `eu.`, `jp.` and `au.` profiles (Sonnet and Haiku
  // also `apac.`). Sources: LiteLLM's model_prices_and_context_window.json (Opus 5.5's five profiles at commits
  // 729b02d0 and e1d16f51, `eu.` at 4.4/22, +10%; Sonnet 5.5's six at 21881c57; Haiku 5.5's six in its Haiku 5.5
  // cost-map test), models.dev's Bedrock list of 2026-10-08 (global/us/eu/jp/au Haiku 5.5, us/eu Sonnet 5.5),
  // and AWS's model cards as quoted by a dated residency review (`eu.anthropic.claude-{sonnet,opus}-5-5`,
  // "Keeps data within EU regions"). The gateway's regions are `us` and `europe` only, so `jp.`, `au.` and
  // `apac.` are not listed. Global profiles at Anthropic's list prices, geo profiles 10% over (Anthropic: "10%
  // premium over global endpoints" for the 4.5 models "and all future models"; LiteLLM's `eu.` rows agree).
  // No source gives Haiku 5.5's Bedrock prices: they are taken to follow the same rule, long-context tier included.
  {
    id: 'anthropic/claude-opus-5.5',
    name: 'Claude Opus 5.5',
    context_length: 1_000_000,
    capabilities: CLAUDE,
    // Cache reads are 0.05x input on this model ($0.20), not the usual 0.1x.
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-opus-5-5',
        pricing: { ...WEB_SEARCH_FEE, ...claudePricing(4, 20), cache_read: 0.2 },
        fast: { pricing: OPUS_5_5_FAST },
        max_output_tokens: 128_000,
      },
      bedrockGlobal(
        'global.anthropic.claude-opus-5-5',
        { us: 'us.anthropic.claude-opus-5-5', europe: 'eu.anthropic.claude-opus-5-5' },
        { ...claudePricing(4, 20), cache_read: 0.2 },
        128_000,
      ),
    ],
  },
  {
    id: 'anthropic/claude-sonnet-5.5',
    name: 'Claude Sonnet 5.5',
    context_length: 1_000_000,
    capabilities: CLAUDE,
    endpoints: [
      { provider: 'anthropic', model: 'claude-sonnet-5-5', pricing: { ...WEB_SEARCH_FEE, ...SONNET_5_5 }, max_output_tokens: 128_000 },
      bedrockGlobal('global.anthropic.claude-sonnet-5-5', { us: 'us.anthropic.claude-sonnet-5-5', europe: 'eu.anthropic.claude-sonnet-5-5' }, SONNET_5_5, 128_000),
    ],
  },
  {
    id: 'anthropic/claude-haiku-5.5',
    name: 'Claude Haiku 5.5',
    context_length: 1_000_000,
    capabilities: CLAUDE,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-haiku-5-5',
        pricing: { ...WEB_SEARCH_FEE, ...HAIKU_5_5 },
        max_output_tokens: 128_000,
      },
      bedrockGlobal('global.anthropic.claude-haiku-5-5', { us: 'us.anthropic.claude-haiku-5-5', europe: 'eu.anthropic.claude-haiku-5-5' }, HAIKU_5_5, 128_000),
    ],
  },
];
