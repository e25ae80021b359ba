/**
 * OpenAI models on OpenAI's API. Prices per million tokens from OpenAI's pricing page; `fast` is Priority
 * processing (`service_tier: priority`) at its published premium (openai.com/api-priority-processing, which
 * lists GPT-5, GPT-5 mini, GPT-4.1, GPT-4.1 mini, o3 and o4-mini at these rates; LiteLLM's price file agrees
 * for the GPT models). The page's current copy (openai.com/api-fast-mode: Priority processing renamed Fast mode
 * on 2026-07-30, `service_tier: priority` still accepted) has one rate per model at every prompt length for
 * these six, the rates below; its "excludes long context" mark (requests estimated at over 272K prompt tokens) is on
 * GPT-5.4 and later only, none of them in this catalog, so there is no long-context priority rate to model.
 * OpenAI caches prompts automatically and has no
 * cache-write price. The data-residency hosts serve these models at the same price (the 10% uplift applies only
 * to models released from March 2026).
 */
import type { Capabilities, ModelData } from '#src/catalog/catalog-types.ts';

const REASONING: Capabilities = { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true };
const NON_REASONING: Capabilities = { ...REASONING, thinking: false };

/**
 * OpenAI's "2026-06-11: GPT-5 and o3 model deprecations": `gpt-5`, `gpt-5-mini`, `gpt-5-nano` and `o3` (with
 * their snapshots) deprecated on 2026-06-11 and shut down on 2026-12-11. Its deprecations page's rows "Dec 11, 2026
 * | gpt-5, gpt-5-2025-08-07 | Deprecated | ... | Jun 11, 2026" (and alike for gpt-5-mini and gpt-5-nano); o3's row
 * is past the stored copy's excerpt and is from copies of the same section (aideprecations, 2026-10: "o3 | OpenAI |
 * Dec 11, 2026"). The page gives days only: 00:00 UTC, as for Anthropic's dates.
 * @see https://developers.openai.com/api/docs/deprecations
 */
const GPT_5_AND_O3_LIFECYCLE = { deprecated_at: '2026-06-11T00:00:00Z', retires_at: '2026-12-11T00:00:00Z' } as const;

/*
 * GPT-4.1 and GPT-4.1 mini carry no retirement: second-hand readings of OpenAI's deprecations page (importstatic's
 * of 2026-10-15, codersera, cometapi-dev's notice, max_bob's) agree that the snapshots `gpt-4.1-2025-04-14` and
 * `gpt-4.1-mini-2025-04-14` shut down on 2027-01-14 (notice 2026-10-14, replacement gpt-6-luna), but disagree on
 * whether the undated ids the catalog calls go with them, and no stored first-party copy reaches the rows (the
 * page's copies end before them; searched again 2026-11-28, spybara's history of the page included).
 */

/*
 * Not built in: `gpt-5.6-sol`, which earlier copies of OpenAI's deprecations page name as GPT-5's and o3's
 * replacement (the newest name gpt-6.1-sol, whose page is not stored). Its model page
 * (developers.openai.com/api/docs/models/gpt-5.6-sol, pt-BR and ja-JP copies) gives a 1,050,000-token window,
 * 128,000 output tokens and $4 in, $0.40 cached, $20 out, but as a promotion "available at least until November 21,
 * 2026" (the list price was $5/$0.50/$30, per resellers), so the price in force now is not known from a first-party
 * copy; the page also bills cache writes at 1.25x input, and the 10% data-residency uplift for models released
 * from March 2026 would apply to it on the regional hosts, neither of which this catalog's OpenAI endpoints model.
 */

/** The built-in OpenAI models. */
export const OPENAI_MODELS: ModelData[] = [
  {
    id: 'openai/gpt-5',
    name: 'GPT-5',
    context_length: 400_000,
    capabilities: REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5',
        pricing: { input: 1.25, output: 10, cache_read: 0.125, cache_write: null },
        fast: { pricing: { input: 2.5, output: 20, cache_read: 0.25, cache_write: null } },
        max_output_tokens: 128_000,
        ...GPT_5_AND_O3_LIFECYCLE,
      },
    ],
  },
  {
    id: 'openai/gpt-5-mini',
    name: 'GPT-5 mini',
    context_length: 400_000,
    capabilities: REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5-mini',
        pricing: { input: 0.25, output: 2, cache_read: 0.025, cache_write: null },
        fast: { pricing: { input: 0.45, output: 3.6, cache_read: 0.045, cache_write: null } },
        max_output_tokens: 128_000,
        ...GPT_5_AND_O3_LIFECYCLE,
      },
    ],
  },
  {
    id: 'openai/gpt-5-nano',
    name: 'GPT-5 nano',
    context_length: 400_000,
    capabilities: REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5-nano',
        pricing: { input: 0.05, output: 0.4, cache_read: 0.005, cache_write: null },
        max_output_tokens: 128_000,
        ...GPT_5_AND_O3_LIFECYCLE,
      },
    ],
  },
  {
    id: 'openai/gpt-4.1',
    name: 'GPT-4.1',
    context_length: 1_047_576,
    capabilities: NON_REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4.1',
        pricing: { input: 2, output: 8, cache_read: 0.5, cache_write: null },
        fast: { pricing: { input: 3.5, output: 14, cache_read: 0.875, cache_write: null } },
        max_output_tokens: 32_768,
      },
    ],
  },
  {
    id: 'openai/gpt-4.1-mini',
    name: 'GPT-4.1 mini',
    context_length: 1_047_576,
    capabilities: NON_REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4.1-mini',
        pricing: { input: 0.4, output: 1.6, cache_read: 0.1, cache_write: null },
        fast: { pricing: { input: 0.7, output: 2.8, cache_read: 0.175, cache_write: null } },
        max_output_tokens: 32_768,
      },
    ],
  },
  {
    id: 'openai/o3',
    name: 'o3',
    context_length: 200_000,
    capabilities: REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'o3',
        pricing: { input: 2, output: 8, cache_read: 0.5, cache_write: null },
        fast: { pricing: { input: 3.5, output: 14, cache_read: 0.875, cache_write: null } },
        max_output_tokens: 100_000,
        ...GPT_5_AND_O3_LIFECYCLE,
      },
    ],
  },
  {
    id: 'openai/o4-mini',
    name: 'o4-mini',
    context_length: 200_000,
    capabilities: REASONING,
    endpoints: [
      {
        provider: 'openai',
        model: 'o4-mini',
        pricing: { input: 1.1, output: 4.4, cache_read: 0.275, cache_write: null },
        fast: { pricing: { input: 2, output: 8, cache_read: 0.5, cache_write: null } },
        max_output_tokens: 100_000,
        // Shut down on 2026-10-23 with `o4-mini-2025-04-16` (replacement gpt-5.6-terra), as copies of OpenAI's
        // deprecations page of 2026-10-15 give it (importstatic's shutdown list; Leigh Efford's checklist: "23 Oct
        // 2026 Older OpenAI snapshots only: o1, o3-mini, o4-mini, ..."); no stored first-party copy reaches the row,
        // nor gives the day it was announced.
        retires_at: '2026-10-23T00:00:00Z',
      },
    ],
  },
];
