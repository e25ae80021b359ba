/**
 * Gemini models on the Gemini API. Prices per million tokens (ai.google.dev/gemini-api/docs/pricing, paid tier,
 * text input). Cache reads are implicit-cache hits; cache storage is billed per hour and not modelled. Gemini
 * 2.5 Pro prompts over 200K tokens pay the long-context rates.
 *
 * No retirement is recorded for Gemini 2.5 Pro and Flash, though Google has deprecated them: the stored copies of
 * its deprecations page (ai.google.dev/gemini-api/docs/deprecations) disagree (June 17, 2026, "Earliest June 2026",
 * or rows cut before 2.5), Firebase's pages said "Gemini 2.5 models will shut down in October 2026", and only a
 * third-party reading of the page (aideprecations, 2026-11-10) gives December 1, 2026, with requests then routed to
 * Gemini 3.x models rather than refused. Checked 2026-11-28; Flash-Lite "is not deprecated" per the same reading.
 * Searched again the same day for Google's own page (Gemini API and Vertex): the stored copies of
 * ai.google.dev/gemini-api/docs/deprecations still stop at "June 17, 2026" or "Earliest June 2026" for 2.5 Pro
 * and Flash (the newest, listing gemini-3.8-flash, is cut before the 2.5 rows), and say the dates are "the earliest
 * possible dates"; Vertex's model-versions page copies give June 17, 2026 too. Later dates are all second-hand
 * and disagree: "no earlier than October 16, 2026" (Google's emails to Vertex users, per gcpstudyhub; the same date
 * for the Gemini API in mozilla/sumo#2794 and crewAIInc/crewAI#7003, which also found 2.5 answering 404 to new
 * users), October 20 (APIYI's notice, for AI Studio), December 1 (aideprecations). No retirement is recorded.
 */
import type { Capabilities, ModelData } from '#src/catalog/catalog-types.ts';

/*
 * No Gemini 3.x model is built in: the stored first-party pages give `gemini-3.8-flash`'s id (Google Cloud's model
 * page) but its limits only through a reseller quoting Google's model page (1,048,576 in, 65,536 out), and its
 * price ($0.75 in, Google's pricing page as transcribed by api-evangelist) as "$0.75 through December 31, 2026",
 * a dated price the catalog cannot carry past that day. Searched 2026-11-28.
 */

const GEMINI: Capabilities = { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true };

/** The built-in Gemini models. */
export const GOOGLE_MODELS: ModelData[] = [
  {
    id: 'google/gemini-2.5-pro',
    name: 'Gemini 2.5 Pro',
    context_length: 1_048_576,
    capabilities: GEMINI,
    endpoints: [
      {
        provider: 'google',
        model: 'gemini-2.5-pro',
        pricing: {
          input: 1.25,
          output: 10,
          cache_read: 0.125,
          cache_write: null,
          long_context: { threshold_tokens: 200_000, input: 2.5, output: 15, cache_read: 0.25, cache_write: null },
        },
        max_output_tokens: 65_536,
      },
    ],
  },
  {
    id: 'google/gemini-2.5-flash',
    name: 'Gemini 2.5 Flash',
    context_length: 1_048_576,
    capabilities: GEMINI,
    endpoints: [
      {
        provider: 'google',
        model: 'gemini-2.5-flash',
        // Cache read $0.03 per Google's current page and LiteLLM's price file (2026-07-24 copy); older copies say $0.075.
        pricing: { input: 0.3, output: 2.5, cache_read: 0.03, cache_write: null },
        max_output_tokens: 65_536,
      },
    ],
  },
  {
    id: 'google/gemini-2.5-flash-lite',
    name: 'Gemini 2.5 Flash-Lite',
    context_length: 1_048_576,
    capabilities: GEMINI,
    endpoints: [
      {
        provider: 'google',
        model: 'gemini-2.5-flash-lite',
        // Cache read $0.01 per Google's current page and LiteLLM's price file (2026-07-24 copy); older copies say $0.025.
        pricing: { input: 0.1, output: 0.4, cache_read: 0.01, cache_write: null },
        max_output_tokens: 65_536,
      },
    ],
  },
];
