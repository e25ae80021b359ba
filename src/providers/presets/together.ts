/** Together AI serverless inference, OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Together AI. Data policy is account-configurable; the default assumed here (no training, not ZDR) is not verified. */
export const together: ProviderPreset = {
  slug: 'together',
  display_name: 'Together',
  family: 'openai-compatible',
  base_url: 'https://api.together.xyz/v1',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'none',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning' },
  docs: 'https://docs.together.ai/docs/openai-api-compatibility',
};
