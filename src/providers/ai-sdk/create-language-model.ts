/**
 * Creates AI SDK language models with the vendor's own provider package, pointed at the attempt's base URL
 * with its key and headers, calling out through the gateway's shared undici pools. Provider factories are
 * kept in a small LRU keyed by (family, provider, base URL, key digest, headers) so that a hot endpoint does
 * not rebuild its client per request; a model object itself is a cheap wrapper made per call.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { OpenAICompatibleProviderSettings } from '@ai-sdk/openai-compatible';
// Loaded on first use of their family, not at start (vendor-packages.ts says why).
import { fillToolTurnReasoning } from '#src/providers/ai-sdk/fill-tool-turn-reasoning.ts';
import { createAmazonBedrock, createAzure, createGoogleGenerativeAI, createOpenAI, createOpenAICompatible } from '#src/providers/ai-sdk/vendor-packages.ts';
import { UpstreamError } from '#src/errors.ts';
import { upstreamFetch } from '#src/providers/http-client.ts';
import { apiKeyOf, type ProviderKey } from '#src/providers/provider-adapter.ts';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import type { ProviderQuirks } from '#src/catalog/catalog-types.ts';

/** What identifies one upstream client. */
export interface LanguageModelTarget {
  family: AiSdkFamily;
  /** Provider slug, for errors. */
  provider: string;
  baseUrl: string;
  key: ProviderKey | undefined;
  upstreamModel: string;
  providerHeaders?: Record<string, string>;
  /** The provider's quirks; the OpenAI-compatible client reads those of its wire format (see `compatibleSettings`). */
  quirks?: Readonly<ProviderQuirks>;
  /** Bedrock without an API key: the configured AWS access key pair, for SigV4 signing. */
  awsCredentials?: AwsSigningCredentials;
}

/**
 * An AWS access key pair (and optional session token) from the gateway configuration, revealed for one call.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html
 */
export interface AwsSigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** The signing region when the base URL is not an AWS host that names one (a test server, a proxy). */
  region?: string;
}

type ModelFactory = (modelId: string) => LanguageModelV4;

const CACHE_LIMIT = 256;
const factories = new Map<string, ModelFactory>();

/** The language model for one attempt, from a cached provider factory. */
export function createLanguageModel(target: LanguageModelTarget): LanguageModelV4 {
  const apiKey = apiKeyOf(target.key);
  const cacheKey = [
    target.family,
    target.provider,
    target.baseUrl,
    apiKey === undefined ? '-' : createHash('sha256').update(apiKey).digest('base64url'),
    target.awsCredentials === undefined ? '-' : createHash('sha256').update(JSON.stringify(target.awsCredentials)).digest('base64url'),
    JSON.stringify(target.providerHeaders ?? {}),
    target.family === 'openai-compatible' ? compatibleQuirksKey(target.quirks ?? {}) : '',
  ].join('\n');
  let factory = factories.get(cacheKey);
  if (factory) {
    factories.delete(cacheKey); // re-insert: Map order is the LRU order
  } else {
    factory = createFactory(target, apiKey);
    if (factories.size >= CACHE_LIMIT) factories.delete(factories.keys().next().value as string);
  }
  factories.set(cacheKey, factory);
  return factory(target.upstreamModel);
}

/** Forgets every cached factory (tests, configuration reloads). */
export function clearLanguageModelCache(): void {
  factories.clear();
}

function createFactory(target: LanguageModelTarget, apiKey: string | undefined): ModelFactory {
  const headers = target.providerHeaders ?? {};
  // An explicit key always: without one the packages fall back to environment variables (OPENAI_API_KEY,
  // AWS credentials), which must never be sent to an arbitrary configured base URL.
  const requireKey = (): string => {
    if (apiKey === undefined || apiKey === '') {
      throw new UpstreamError({ provider: target.provider, kind: 'authentication', message: `Upstream ${target.provider} failed: no API key configured` });
    }
    return apiKey;
  };
  const common = { baseURL: target.baseUrl, headers, fetch: upstreamFetch };
  switch (target.family) {
    case 'openai-chat': {
      const provider = createOpenAI({ ...common, apiKey: requireKey() });
      return (modelId) => provider.chat(modelId);
    }
    case 'openai-responses': {
      const provider = createOpenAI({ ...common, apiKey: requireKey() });
      return (modelId) => provider.responses(modelId);
    }
    case 'azure': {
      const provider = createAzure({ ...common, apiKey: requireKey() });
      return (modelId) => provider.chat(modelId);
    }
    case 'openai-compatible': {
      // Local servers (Ollama, vLLM) take no key.
      const provider = createOpenAICompatible({ ...common, name: 'openaiCompatible', ...(apiKey ? { apiKey } : {}), ...compatibleSettings(target.quirks ?? {}) });
      return (modelId) => provider.chatModel(modelId);
    }
    case 'google': {
      const provider = createGoogleGenerativeAI({ ...common, apiKey: requireKey() });
      return (modelId) => provider.languageModel(modelId);
    }
    case 'bedrock': {
      const provider = createAmazonBedrock(bedrockSettings(target, apiKey, requireKey));
      return (modelId) => provider.languageModel(modelId);
    }
    default: {
      const unreachable: never = target.family;
      throw new Error(`unknown AI SDK family ${String(unreachable)}`);
    }
  }
}

function compatibleQuirksKey(quirks: Readonly<ProviderQuirks>): string {
  return [quirks.includeUsage, quirks.supportsStructuredOutputs, quirks.supportsMultiPartToolContent, quirks.reasoningField, quirks.toolTurnsNeedReasoning].join('|');
}

/**
 * The OpenAI-compatible client's settings from the provider's quirks: usage requested in the last stream chunk
 * (`stream_options.include_usage`, on unless the vendor refuses the field, as Mistral does), `response_format:
 * json_schema`, tool results sent as content parts rather than text, and the field replayed reasoning goes in.
 * The package writes an assistant turn's reasoning as `reasoning_content`; a vendor reading `reasoning`
 * (Groq, Cerebras, OpenRouter, Together) refuses that field, so it is renamed; a vendor that wants it on every
 * assistant message of a tool-calling turn (DeepSeek) gets it empty where there is none. Streamed reasoning is
 * read from either field by the package itself.
 */
function compatibleSettings(quirks: Readonly<ProviderQuirks>): Pick<OpenAICompatibleProviderSettings, 'includeUsage' | 'supportsStructuredOutputs' | 'supportsMultiPartToolContent' | 'transformRequestBody'> {
  return {
    includeUsage: quirks.includeUsage ?? true,
    supportsStructuredOutputs: quirks.supportsStructuredOutputs ?? false,
    supportsMultiPartToolContent: quirks.supportsMultiPartToolContent ?? false,
    ...(quirks.reasoningField === 'reasoning' ? { transformRequestBody: moveReplayedReasoning } : {}),
    ...(quirks.reasoningField === 'none' ? { transformRequestBody: dropReplayedReasoning } : {}),
    ...(quirks.toolTurnsNeedReasoning && (quirks.reasoningField ?? 'reasoning_content') === 'reasoning_content' ? { transformRequestBody: fillToolTurnReasoning } : {}),
  };
}

/** Moves the reasoning of assistant turns from `reasoning_content` to `reasoning`, in the body the package built. */
function moveReplayedReasoning(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  for (const message of messages as Array<Record<string, unknown>>) {
    if (message.reasoning_content === undefined) continue;
    message.reasoning = message.reasoning_content;
    delete message.reasoning_content;
  }
  return body;
}

/**
 * Leaves the reasoning of assistant turns out of the body the package built, for a vendor that refuses the
 * field (Mistral validates messages strictly: `reasoning_content` is a 422 `extra_forbidden`). The thinking an
 * Anthropic client passes back is the model's own past reasoning; the answer does not depend on reading it.
 */
function dropReplayedReasoning(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  for (const message of messages as Array<Record<string, unknown>>) delete message.reasoning_content;
  return body;
}

/**
 * Bedrock API keys (BYOK, or a configured `api_key`) are bearer tokens; without one, the configured AWS key
 * pair signs with SigV4 in the host's region. `apiKey: ''` and a credential provider keep the package from
 * reading AWS_BEARER_TOKEN_BEDROCK or AWS_ACCESS_KEY_ID from the environment.
 */
function bedrockSettings(target: LanguageModelTarget, apiKey: string | undefined, requireKey: () => string): Parameters<typeof createAmazonBedrock>[0] {
  const common = { baseURL: target.baseUrl, headers: target.providerHeaders ?? {}, fetch: upstreamFetch };
  const aws = target.awsCredentials;
  if ((apiKey === undefined || apiKey === '') && aws !== undefined) {
    const { accessKeyId, secretAccessKey, sessionToken } = aws;
    return {
      ...common,
      apiKey: '',
      region: hostRegionOf(target.baseUrl) ?? aws.region ?? 'us-east-1',
      credentialProvider: async () => ({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }),
    };
  }
  // The region only names the SigV4 scope, taken from the host.
  return { ...common, apiKey: requireKey(), region: regionOf(target.baseUrl) };
}

function hostRegionOf(baseUrl: string): string | undefined {
  return /bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com/.exec(new URL(baseUrl).hostname)?.[1];
}

/** The AWS region of a Bedrock runtime host (`bedrock-runtime.eu-central-1.amazonaws.com`), else us-east-1. */
export function regionOf(baseUrl: string): string {
  return hostRegionOf(baseUrl) ?? 'us-east-1';
}
