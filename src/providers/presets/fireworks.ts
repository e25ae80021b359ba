/** Fireworks AI, OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Fireworks AI. Keys may be objects {api_key, region}; no public regional host was found, so set regional_base_urls in the configuration to use one. Open models: prompts not stored by default (not verified). */
export const fireworks: ProviderPreset = {
  slug: 'fireworks',
  display_name: 'Fireworks',
  family: 'openai-compatible',
  base_url: 'https://api.fireworks.ai/inference/v1',
  regional_keys: true,
  auth: 'bearer',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'automatic',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning_content' },
  docs: 'https://docs.fireworks.ai/tools-sdks/openai-compatibility',
};
