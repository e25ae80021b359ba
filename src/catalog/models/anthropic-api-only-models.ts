/**
 * Claude models the catalog serves from Anthropic's own API only: Sonnet 4.6, Opus 4.7, Opus 4.8, Opus 5,
 * Sonnet 5, and Fable 5, 5.1 and 5.2, each still available on Anthropic's API (stored copies checked 2026-11-28):
 * Fable 5.2 is on the models overview's current lineup (released 2026-11-09); Fable 5, Opus 4.8, Opus 5, Sonnet 5
 * and Sonnet 4.6 have overview pages (platform.claude.com/docs/en/models/<model>/overview) marked "Legacy" ("still
 * available", a newer model recommended), Fable 5.1's last stored page says "Latest" (it predates 5.2); Opus 4.7
 * has no stored Anthropic overview page: the pricing page lists it without the "retired" mark it gives Opus 4.1,
 * and AWS's and Google Cloud's model cards say active, retiring no sooner than 2027-04-16. None is deprecated.
 * Left out: the Mythos models (5, 5.1 and 5.2), offered to verified organisations only.
 *
 * No Bedrock endpoint: Anthropic lists the models after Opus 4.6 on Bedrock's Messages-API endpoint
 * (`/anthropic/v1/messages`, platform.claude.com/docs/en/build-with-claude/claude-in-amazon-bedrock), not on the
 * Converse API the gateway's Bedrock provider speaks (its legacy page covers "Opus 4.6 and earlier"); no source
 * found gives their Converse inference-profile ids. Checked again 2026-11-28 for AWS sources: the stored AWS
 * model card for Opus 4.7 (docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-4-7.html:
 * 1M context, 128K output, lifecycle Active, "EOL no sooner than: Apr 16, 2027") ends before its model ids, and
 * none is stored for the other seven. Ids such as `us.anthropic.claude-opus-4-7` and `anthropic.claude-sonnet-4-6`
 * appear only in third-party code, so no Bedrock endpoint is added.
 *
 * Context 1M and output 128K natively on every one (the overview pages; for Opus 4.7, AWS's and Google Cloud's
 * model cards), one rate across the whole window: no long-context tier is documented for them, unlike Sonnet 4.5.
 */
import type { ModelData, Pricing } from '#src/catalog/catalog-types.ts';
import { CLAUDE, claudePricing, WEB_SEARCH_FEE } from './anthropic-models.ts';

/** One model on Anthropic's API with its 1M context and 128K output, and its fast mode's prices where it has one. */
function anthropicOnly(slug: string, name: string, model: string, pricing: Pricing, fast?: Pricing): ModelData {
  return {
    id: slug,
    name,
    context_length: 1_000_000,
    capabilities: CLAUDE,
    endpoints: [
      {
        provider: 'anthropic',
        model,
        pricing: { ...WEB_SEARCH_FEE, ...pricing },
        ...(fast ? { fast: { pricing: { ...WEB_SEARCH_FEE, ...fast } } } : {}),
        max_output_tokens: 128_000,
      },
    ],
  };
}

/**
 * The models. Prices per million tokens from Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing,
 * "Model pricing" table: base input, 5-minute and 1-hour cache writes, cache hits, output) unless said otherwise.
 *
 * Fast mode (`speed: fast`): Anthropic's fast-mode page (platform.claude.com/docs/en/build-with-claude/fast-mode,
 * 2026-11 copy) has it "available on Claude Fable 5.2 ... and Claude Opus 5.5", "in research preview on Claude
 * Opus 5 and deprecated on Claude Opus 4.8"; Claude Code's fast-mode page: Opus 4.8's is removed on 2026-11-30 and
 * Opus 4.7's was removed on 2026-07-24, Sonnet models have none. Fast rates are twice the standard ones with the
 * caching multipliers on top, as for Opus 5.5. Opus 5 $10/$50: verified against a transcript of the pricing page
 * ("source: platform.claude.com/docs/en/about-claude/pricing / last verified: 2026-08-07", kept in a public
 * repository): "Fast mode pricing | Claude Opus 5 / Claude Opus 4.8 | $10 / MTok | $50 / MTok", which "stacks
 * with prompt caching" (so reads $1, writes $12.50 and $20). Fable 5.2 $16/$80: Google Cloud's Fable 5.2 model
 * page prices its fast mode "at 2x the standard-speed token rates across all token types (input, output, 5-minute
 * and 1-hour cache write, and cache hit tokens)" (documentation.s3ns.fr/gemini-enterprise-agent-platform/models/
 * partner-models/claude/fable-5-2, Google's documentation), the rule Anthropic's own rates follow on Opus 5.5; a
 * 2026-11-12 guide quoting Anthropic's pages says the same ($16/$80, qiita kai_kou). Anthropic's own fast-mode
 * price table for it is not stored (searched again 2026-11-28), so the figure rests on that rule and on Fable 5.2's
 * standard prices. Opus 4.8's deprecated fast mode is left out: it ends in two days.
 */
export const ANTHROPIC_API_ONLY_MODELS: ModelData[] = [
  // Fable 5.2: $8/$40 (models overview, 2026-11 copy; "20% below Fable 5.1"). Its cache prices stay UNVERIFIED:
  // no stored copy of Anthropic's pricing page or of a Fable 5.2 overview page gives them (searched again
  // 2026-11-28; the newest pricing-page transcript, of 2026-08-07, predates the model). $0.20 reads (0.025x
  // input, Fable 5.1's ratio), $10 5-minute and $16 one-hour writes are from price lists that say they match it
  // (rightsize v0.10.2 release notes reading "the Fable 5.2 row" of the pricing page; LaoZhang's Fable 5.2 note:
  // read $0.2, write $10), and follow the page's multipliers (1.25x and 2x input) with Fable 5.1's read ratio.
  // A second search on 2026-11-28 found the stored pricing-page copy listing Fable 5.1 as the newest row and no
  // Fable 5.2 overview page, so they stay unverified.
  anthropicOnly('anthropic/claude-fable-5.2', 'Claude Fable 5.2', 'claude-fable-5-2', { ...claudePricing(8, 40), cache_read: 0.2 }, { ...claudePricing(16, 80), cache_read: 0.4 }),
  // Fable 5.1: cache hits $0.25 (0.025x input, the pricing page's footnoted rate), writes $12.50 and $20.
  anthropicOnly('anthropic/claude-fable-5.1', 'Claude Fable 5.1', 'claude-fable-5-1', { ...claudePricing(10, 50), cache_read: 0.25 }),
  // Fable 5: $10/$50, cache hits $1 (the standard 0.1x), writes $12.50 and $20.
  anthropicOnly('anthropic/claude-fable-5', 'Claude Fable 5', 'claude-fable-5', claudePricing(10, 50)),
  // Opus 5, 4.8 and 4.7: $5/$25, writes $6.25 and $10, hits $0.50 (the pricing page; Opus 5's overview page too).
  anthropicOnly('anthropic/claude-opus-5', 'Claude Opus 5', 'claude-opus-5', claudePricing(5, 25), claudePricing(10, 50)),
  anthropicOnly('anthropic/claude-opus-4.8', 'Claude Opus 4.8', 'claude-opus-4-8', claudePricing(5, 25)),
  anthropicOnly('anthropic/claude-opus-4.7', 'Claude Opus 4.7', 'claude-opus-4-7', claudePricing(5, 25)),
  // Sonnet 5: $2/$10, writes $2.50 and $4, hits $0.20 (its overview page). Sonnet 4.6: $3/$15 (its overview page),
  // writes $3.75 and $6, hits $0.30: the pricing page's row "Claude Sonnet 4.6 | $3 / MTok | $3.75 / MTok | $6 /
  // MTok | $0.30 / MTok | $15 / MTok", in the 2026-08-07 transcript above (Anthropic's own stored copy is cut
  // before the row); the standard multipliers give the same.
  anthropicOnly('anthropic/claude-sonnet-5', 'Claude Sonnet 5', 'claude-sonnet-5', claudePricing(2, 10)),
  anthropicOnly('anthropic/claude-sonnet-4.6', 'Claude Sonnet 4.6', 'claude-sonnet-4-6', claudePricing(3, 15)),
];
