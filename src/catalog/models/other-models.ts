/**
 * Mistral, xAI and Perplexity models on their vendors' own APIs. Prices per million tokens; "unverified" marks
 * recalled list prices that could not be confirmed. Perplexity's Sonar models also bill every request by its
 * search context size (`search_request`, USD per request): Sonar $5/$8/$12 per 1,000 requests at
 * low/medium/high (its model page, docs.perplexity.ai/docs/legacy/sonar/models/sonar, which bills a
 * low-context answer $5 per 1,000); Sonar Pro $6/$10/$14 (its model page, perplexity.mintlify.app/guides/models/
 * sonar-pro, "Price per 1,000 Requests $14 $10 $6" at high/medium/low; Perplexity's announcement of cost in
 * `usage` shows a Sonar Pro low-context `request_cost` of 0.006). Token prices $1/$1 and $3/$15 (the pricing
 * page's token table). Pro Search (`search_type: pro`) has its own fees: the gateway never asks for it, so they
 * are not listed.
 */
import type { ModelData } from '#src/catalog/catalog-types.ts';

/**
 * When xAI retired `grok-4-0709` and `grok-4-fast-reasoning` from its API: "Effective May 15, 2026 at 12:00pm PT
 * ... After May 15, 2026 at 12:00pm PT, requests to the models listed above will no longer work", both replaced
 * by `grok-4.3` (xAI's migration guide, docs.x.ai/developers/migration/may-15-retirement). 12:00 PDT is 19:00 UTC.
 * The guide gives no announcement date, so `deprecated_at` stays unrecorded; the models stay listed as retired.
 * @see https://docs.x.ai/developers/migration/may-15-retirement
 */
const XAI_MAY_15_RETIREMENT = '2026-05-15T19:00:00Z';

/*
 * Their replacement, `grok-4.3`, is not built in: xAI's model page (docs.x.ai, stored 2026-11-28) gives the id, a
 * 1,000,000-token window and $1.25 in, $0.20 cached, $2.50 out, but no output limit, and says "We charge different
 * rates for requests which exceed the 200K context window" without the rates in the stored copy. Only resellers
 * give those (APIYI: $2.50 in over 204,800 tokens; Venice: 32K output), which the catalog does not take.
 */

/** The built-in Mistral, xAI and Perplexity models. */
export const OTHER_MODELS: ModelData[] = [
  {
    id: 'mistral/mistral-medium-3.1',
    name: 'Mistral Medium 3.1',
    context_length: 131_072,
    capabilities: { tools: true, vision: true, pdf: false, thinking: false, caching: false, structured_output: true },
    endpoints: [
      {
        provider: 'mistral',
        model: 'mistral-medium-2508',
        pricing: { input: 0.4, output: 2, cache_read: null, cache_write: null },
      },
    ],
  },
  {
    id: 'mistral/mistral-small-3.2',
    name: 'Mistral Small 3.2',
    context_length: 131_072,
    capabilities: { tools: true, vision: true, pdf: false, thinking: false, caching: false, structured_output: true },
    endpoints: [
      {
        provider: 'mistral',
        model: 'mistral-small-2506',
        // Unresolved: LiteLLM's price file (2026-07-24 copy) lists `mistral-small-3-2-2506` at $0.06/$0.18, citing
        // mistral.ai/pricing; other copies of Mistral's page give $0.10/$0.30. No primary copy is stored: searched
        // again 2026-11-28 (docs.mistral.ai's model pages and model selection guide are stored, but not the rows
        // or the page that price Small 3.2), so the price stays as it was. `cache_read: null` (cached tokens billed
        // as input) is UNVERIFIED too: no first-party source in the corpora says whether or at what rate Mistral
        // discounts cached input for Small 3.2 (searched again 2026-11-28, twice: Mistral's pricing page and the
        // model's docs page are still not stored; only third-party tables, which disagree).
        pricing: { input: 0.1, output: 0.3, cache_read: null, cache_write: null },
      },
    ],
  },
  {
    id: 'xai/grok-4',
    name: 'Grok 4',
    context_length: 256_000,
    capabilities: { tools: true, vision: true, pdf: false, thinking: true, caching: true, structured_output: true },
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4-0709',
        pricing: {
          input: 3,
          output: 15,
          cache_read: 0.75,
          cache_write: null,
          // Prompts over 128K tokens cost double: $6/$30 (LiteLLM's price file, 2026-07-24 copy, `xai/grok-4-0709`).
          // Neither cache-read rate is in that file ($0.75 is Vercel's gateway listing); the long-context one is unverified.
          // Searched again 2026-11-28: xAI's model pages are stored for later models (docs.x.ai/developers/models/...)
          // but not for grok-4-0709, so neither cache-read rate is confirmed by xAI; they stay as they were, UNVERIFIED
          // (a second search the same day found $0.75 only in third-party guides, e.g. Apidog's Grok 4 API guide).
          // Moot since xAI retired the model id on 2026-05-15 (below): the endpoint is never routed to.
          long_context: { threshold_tokens: 128_000, input: 6, output: 30, cache_read: 1.5, cache_write: null },
        },
        retires_at: XAI_MAY_15_RETIREMENT,
      },
    ],
  },
  {
    id: 'xai/grok-4-fast',
    name: 'Grok 4 Fast',
    context_length: 2_000_000,
    capabilities: { tools: true, vision: true, pdf: false, thinking: true, caching: true, structured_output: true },
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4-fast-reasoning',
        pricing: {
          input: 0.2,
          output: 0.5,
          cache_read: 0.05,
          cache_write: null,
          // Over 128K: $0.40/$1.00 (LiteLLM's price file, 2026-07-24 copy); the long-context cache-read rate is unverified.
          long_context: { threshold_tokens: 128_000, input: 0.4, output: 1, cache_read: 0.05, cache_write: null },
        },
        max_output_tokens: 30_000,
        retires_at: XAI_MAY_15_RETIREMENT,
      },
    ],
  },
  {
    id: 'perplexity/sonar',
    name: 'Sonar',
    context_length: 127_072,
    capabilities: { tools: false, vision: false, pdf: false, thinking: false, caching: false, structured_output: true },
    endpoints: [
      {
        provider: 'perplexity',
        model: 'sonar',
        pricing: { input: 1, output: 1, cache_read: null, cache_write: null, search_request: { low: 0.005, medium: 0.008, high: 0.012 } },
      },
    ],
  },
  {
    id: 'perplexity/sonar-pro',
    name: 'Sonar Pro',
    context_length: 200_000,
    capabilities: { tools: false, vision: false, pdf: false, thinking: false, caching: false, structured_output: true },
    endpoints: [
      {
        provider: 'perplexity',
        model: 'sonar-pro',
        pricing: { input: 3, output: 15, cache_read: null, cache_write: null, search_request: { low: 0.006, medium: 0.01, high: 0.014 } },
        max_output_tokens: 8_000,
      },
    ],
  },
];
