/** xAI (Grok), OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** xAI. Regional hosts exist as https://<cloud-region>.api.x.ai (e.g. us-east-1); not mapped to us/europe here. */
export const xai: ProviderPreset = {
  slug: 'xai',
  display_name: 'xAI',
  family: 'openai-compatible',
  base_url: 'https://api.x.ai/v1',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'automatic',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning_content' },
  docs: 'https://docs.x.ai/docs/api-reference',
};
