/** Amazon Bedrock (Converse API). */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/**
 * Amazon Bedrock: the cloud provider among the presets whose regional hosts accept `us` and `europe`
 * credentials. The default host is us-east-1; models reach other regions through inference profiles
 * (`global.`, `us.`, `eu.` model-id prefixes). Bedrock neither stores nor trains on prompts.
 */
export const bedrock: ProviderPreset = {
  slug: 'bedrock',
  display_name: 'Amazon Bedrock',
  family: 'bedrock',
  base_url: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  regional_base_urls: {
    us: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    europe: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
  },
  auth: 'aws',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'explicit',
  docs: 'https://docs.aws.amazon.com/bedrock/latest/userguide/data-protection.html',
};
