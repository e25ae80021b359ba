/** OpenRouter, itself a router; useful as a catch-all upstream. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** OpenRouter: the data policy depends on the downstream provider it picks, so it is assumed to collect data. */
export const openrouter: ProviderPreset = {
  slug: 'openrouter',
  display_name: 'OpenRouter',
  family: 'openai-compatible',
  base_url: 'https://openrouter.ai/api/v1',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'allow' },
  prompt_caching: 'automatic',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning', reasoningDetails: true },
  docs: 'https://openrouter.ai/docs/api-reference/overview',
};
