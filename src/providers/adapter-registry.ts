/**
 * One adapter per upstream API family, created once at start: Anthropic-format upstreams go through the
 * passthrough adapter, every other family through the AI SDK adapter for that family. Per-provider settings
 * (quirks, AWS signing) arrive with each attempt's call, not from here.
 */
import type { ApiFamily, ProviderAdapter } from '#src/providers/provider-adapter.ts';
import { anthropicAdapter } from '#src/providers/anthropic/anthropic-adapter.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';

/** Looks up the adapter of a family. */
export type AdapterLookup = (family: ApiFamily) => ProviderAdapter;

/** Builds every family's adapter. */
export function createAdapterRegistry(): AdapterLookup {
  const adapters: Record<ApiFamily, ProviderAdapter> = {
    anthropic: anthropicAdapter,
    'openai-chat': createAiSdkAdapter({ family: 'openai-chat' }),
    'openai-responses': createAiSdkAdapter({ family: 'openai-responses' }),
    'openai-compatible': createAiSdkAdapter({ family: 'openai-compatible' }),
    google: createAiSdkAdapter({ family: 'google' }),
    bedrock: createAiSdkAdapter({ family: 'bedrock' }),
    azure: createAiSdkAdapter({ family: 'azure' }),
  };
  return (family) => adapters[family];
}
