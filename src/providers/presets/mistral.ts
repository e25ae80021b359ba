/** Mistral AI's La Plateforme, OpenAI-compatible chat completions. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/**
 * Mistral: paid API traffic is not used for training; tool-call ids must be 9 alphanumeric characters; an
 * assistant message takes no `reasoning_content` (a 422 `extra_forbidden`), so earlier turns' thinking is left out.
 */
export const mistral: ProviderPreset = {
  slug: 'mistral',
  display_name: 'Mistral',
  family: 'openai-compatible',
  base_url: 'https://api.mistral.ai/v1',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'none',
  quirks: { includeUsage: false, supportsStructuredOutputs: true, toolCallIdMaxLength: 9, reasoningField: 'none' },
  docs: 'https://docs.mistral.ai/api/',
};
