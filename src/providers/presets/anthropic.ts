/** Anthropic's own API: the passthrough family. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Anthropic Messages API. API data is not used for training; kept up to 30 days (ZDR only by agreement). */
export const anthropic: ProviderPreset = {
  slug: 'anthropic',
  display_name: 'Anthropic',
  family: 'anthropic',
  base_url: 'https://api.anthropic.com',
  auth: 'x-api-key',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'explicit',
  docs: 'https://docs.anthropic.com/en/api/messages',
};
