/** A vLLM server, through its OpenAI-compatible API. */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';

/** vLLM: self-hosted; a key is sent only when configured (vllm serve --api-key); models are declared in the configuration file. */
export const vllm: ProviderPreset = {
  slug: 'vllm',
  display_name: 'vLLM',
  family: 'openai-compatible',
  base_url: 'http://127.0.0.1:8000/v1',
  auth: 'bearer',
  data_policy: { zdr: true, data_collection: 'deny' },
  prompt_caching: 'automatic',
  quirks: { includeUsage: true, supportsStructuredOutputs: true, reasoningField: 'reasoning_content' },
  docs: 'https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html',
};
