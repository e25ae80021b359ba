/**
 * One adapter per upstream API family, created once at start: Anthropic-format upstreams go through the
 * passthrough adapter, every other family through the AI SDK adapter for that family.
 */
import type { Catalog } from '#src/catalog/index.ts';
import type { ApiFamily, ProviderAdapter } from '#src/providers/provider-adapter.ts';
import { anthropicAdapter } from '#src/providers/anthropic/anthropic-adapter.ts';
import { createAiSdkAdapter } from '#src/providers/ai-sdk/ai-sdk-adapter.ts';
import type { AwsSigningCredentials } from '#src/providers/ai-sdk/create-language-model.ts';

/** Looks up the adapter of a family. */
export type AdapterLookup = (family: ApiFamily) => ProviderAdapter;

/** Builds every family's adapter; the catalog supplies per-provider quirks. */
export function createAdapterRegistry(catalog: Catalog): AdapterLookup {
  const quirks = (provider: string) => catalog.getProvider(provider)?.quirks;
  const adapters: Record<ApiFamily, ProviderAdapter> = {
    anthropic: anthropicAdapter,
    'openai-chat': createAiSdkAdapter({ family: 'openai-chat', quirks }),
    'openai-responses': createAiSdkAdapter({ family: 'openai-responses', quirks }),
    'openai-compatible': createAiSdkAdapter({ family: 'openai-compatible', quirks }),
    google: createAiSdkAdapter({ family: 'google', quirks }),
    bedrock: createAiSdkAdapter({ family: 'bedrock', quirks, awsCredentials: (provider) => awsCredentialsOf(catalog, provider) }),
    azure: createAiSdkAdapter({ family: 'azure', quirks }),
  };
  return (family) => adapters[family];
}

/** The configured AWS key pair of a provider, revealed for the call about to sign with it; undefined when incomplete. */
function awsCredentialsOf(catalog: Catalog, provider: string): AwsSigningCredentials | undefined {
  const aws = catalog.getProvider(provider)?.aws;
  const accessKeyId = aws?.accessKeyId?.reveal();
  const secretAccessKey = aws?.secretAccessKey?.reveal();
  if (!aws || !accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = aws.sessionToken?.reveal();
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), ...(aws.region ? { region: aws.region } : {}) };
}
