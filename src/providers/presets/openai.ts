/** OpenAI's own API, with its data-residency hosts. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/**
 * OpenAI. Data-residency projects call `us.api.openai.com` or `eu.api.openai.com` (the same hosts the official
 * SDK's `dataResidency` option selects); their keys are objects `{api_key, region}`. API data is not used for
 * training and is kept up to 30 days for abuse monitoring.
 */
export const openai: ProviderPreset = {
  slug: 'openai',
  display_name: 'OpenAI',
  family: 'openai-responses',
  base_url: 'https://api.openai.com/v1',
  regional_base_urls: { us: 'https://us.api.openai.com/v1', europe: 'https://eu.api.openai.com/v1' },
  regional_keys: true,
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'automatic',
  docs: 'https://developers.openai.com/api/docs/guides/data-residency',
};
