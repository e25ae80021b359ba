/** Groq (LPU inference), OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Groq: does not retain inference data by default; no training on it. */
export const groq: ProviderPreset = {
  slug: 'groq',
  display_name: 'Groq',
  family: 'openai-compatible',
  base_url: 'https://api.groq.com/openai/v1',
  auth: 'bearer',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'automatic',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning' },
  docs: 'https://console.groq.com/docs/openai',
};
