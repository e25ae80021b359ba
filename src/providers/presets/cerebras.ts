/** Cerebras inference, OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Cerebras: states it does not store inference data (marked ZDR; not independently verified). */
export const cerebras: ProviderPreset = {
  slug: 'cerebras',
  display_name: 'Cerebras',
  family: 'openai-compatible',
  base_url: 'https://api.cerebras.ai/v1',
  auth: 'bearer',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'none',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning' },
  docs: 'https://inference-docs.cerebras.ai/resources/openai',
};
