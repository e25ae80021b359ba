/** Azure OpenAI: one host per customer resource, so the base URL comes from configuration. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/**
 * Azure OpenAI. There is no global host: set `base_url` (e.g. `https://<resource>.openai.azure.com/openai`) and
 * declare the deployments as endpoints in the configuration file; the built-in catalog has none.
 */
export const azure: ProviderPreset = {
  slug: 'azure',
  display_name: 'Azure',
  family: 'azure',
  base_url: null,
  auth: 'api-key',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'automatic',
  docs: 'https://learn.microsoft.com/azure/ai-foundry/openai/reference',
};
