/** Ollama on this machine, through its OpenAI-compatible API. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** Ollama: local, keyless; its models are declared in the configuration file. */
export const ollama: ProviderPreset = {
  slug: 'ollama',
  display_name: 'Ollama',
  family: 'openai-compatible',
  base_url: 'http://127.0.0.1:11434/v1',
  auth: 'none',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'none',
  quirks: { includeUsage: true, supportsStructuredOutputs: true },
  docs: 'https://github.com/ollama/ollama/blob/main/docs/openai.md',
};
