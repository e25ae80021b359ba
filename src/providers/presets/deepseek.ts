/** DeepSeek's own API, OpenAI-compatible. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** DeepSeek: its terms allow using inputs to improve services, so it is marked as collecting data. */
export const deepseek: ProviderPreset = {
  slug: 'deepseek',
  display_name: 'DeepSeek',
  family: 'openai-compatible',
  base_url: 'https://api.deepseek.com/v1',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'allow' },
  prompt_caching: 'automatic',
  // Its thinking mode wants reasoning back on a tool-calling turn's assistant messages (a 400 otherwise).
  quirks: { includeUsage: true, supportsStructuredOutputs: false, reasoningField: 'reasoning_content', toolTurnsNeedReasoning: true },
  docs: 'https://api-docs.deepseek.com/quick_start/pricing',
};
