/** Google's Gemini API (AI Studio keys). */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Gemini API, paid tier: prompts are not used for training; logged for a limited time for abuse monitoring. */
export const google: ProviderPreset = {
  slug: 'google',
  display_name: 'Google AI Studio',
  family: 'google',
  base_url: 'https://generativelanguage.googleapis.com/v1beta',
  auth: 'x-goog-api-key',
  data_policy: { zdr: false, data_collection: 'deny' },
  // Implicit caching is automatic; explicit cachedContents are a separate resource the gateway does not manage.
  prompt_caching: 'automatic',
  docs: 'https://ai.google.dev/gemini-api/docs/pricing',
};
