/** Perplexity Sonar, OpenAI-compatible (search-grounded answers). */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Perplexity: no client tools; answers carry citations; each request's search fee is priced by the catalog (`search_request`). */
export const perplexity: ProviderPreset = {
  slug: 'perplexity',
  display_name: 'Perplexity',
  family: 'openai-compatible',
  base_url: 'https://api.perplexity.ai',
  auth: 'bearer',
  data_policy: { zdr: false, data_collection: 'deny' },
  prompt_caching: 'none',
  quirks: { includeUsage: true, supportsStructuredOutputs: true },
  docs: 'https://docs.perplexity.ai/api-reference/chat-completions-post',
};
