/**
 * What the translators need to know about each AI SDK family: the provider-options namespace its package
 * reads (and publishes metadata under), whether it takes explicit cache breakpoints, and how Anthropic's
 * reasoning controls reach it. Data, not code paths: the converters branch on these fields only.
 */
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { CacheControl } from '#src/api-types.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { nearestKnownCacheLifetime } from '#src/request/cache-lifetime.ts';

/** The families served through the Vercel AI SDK (every family but Anthropic's passthrough). */
export type AiSdkFamily = Exclude<ApiFamily, 'anthropic'>;

/** How a family expresses Anthropic's `thinking` and `output_config.effort`. */
export type ReasoningStyle = 'openai-effort' | 'compatible-effort' | 'google-thinking-config' | 'bedrock-reasoning-config';

/**
 * How a system message inside the conversation, after its first user or assistant turn, reaches the vendor: as
 * a system message at its position, or (where the vendor takes system text only before the conversation) as a
 * framed text part of the user turn at its position.
 */
export type LaterSystemMessages = 'system-message' | 'user-text';

/** One family's translation traits. */
export interface AiSdkVendorProfile {
  family: AiSdkFamily;
  /** The key of `providerOptions` / `providerMetadata` its AI SDK package uses. */
  namespace: string;
  /** Human name used in 400 messages ("... is not supported by OpenAI Chat Completions"). */
  label: string;
  reasoningStyle: ReasoningStyle;
  laterSystemMessages: LaterSystemMessages;
  /**
   * Whether the vendor signs tool calls and text (Gemini): each signature rides an empty thinking block right
   * before the tool_use or text it signs.
   */
  signsParts?: boolean;
  /** Whether the package asks for reasoning summaries whenever an effort is set (OpenAI Responses) unless told not to. */
  summarizesReasoning?: boolean;
  /** Whether the vendor's API takes stop sequences (OpenAI's Responses API has none). */
  stopSequences: boolean;
  /** Which http(s) URL sources the vendor fetches itself; the gateway never downloads a client's URL. */
  remoteUrls: { image: boolean; pdf: boolean };
  /** The provider options that make one explicit cache breakpoint, or `undefined` when the vendor caches on its own. */
  cacheMarker(control: CacheControl): SharedV4ProviderOptions | undefined;
}

const noExplicitCache = (): undefined => undefined;

const PROFILES: Record<AiSdkFamily, AiSdkVendorProfile> = {
  'openai-chat': { family: 'openai-chat', namespace: 'openai', label: 'OpenAI Chat Completions', reasoningStyle: 'openai-effort', laterSystemMessages: 'system-message', stopSequences: true, remoteUrls: { image: true, pdf: false }, cacheMarker: noExplicitCache },
  'openai-responses': { family: 'openai-responses', namespace: 'openai', label: 'OpenAI Responses', reasoningStyle: 'openai-effort', summarizesReasoning: true, laterSystemMessages: 'system-message', stopSequences: false, remoteUrls: { image: true, pdf: true }, cacheMarker: noExplicitCache },
  azure: { family: 'azure', namespace: 'azure', label: 'Azure OpenAI', reasoningStyle: 'openai-effort', laterSystemMessages: 'system-message', stopSequences: true, remoteUrls: { image: true, pdf: false }, cacheMarker: noExplicitCache },
  'openai-compatible': {
    family: 'openai-compatible',
    namespace: 'openaiCompatible',
    label: 'OpenAI-compatible Chat Completions',
    reasoningStyle: 'compatible-effort',
    laterSystemMessages: 'system-message',
    stopSequences: true,
    remoteUrls: { image: true, pdf: false },
    cacheMarker: noExplicitCache,
  },
  google: {
    family: 'google',
    namespace: 'google',
    label: 'Google Gemini',
    signsParts: true,
    reasoningStyle: 'google-thinking-config',
    // Gemini takes system text only as the system instruction (the AI SDK refuses a later system message).
    laterSystemMessages: 'user-text',
    stopSequences: true,
    remoteUrls: { image: false, pdf: false },
    cacheMarker: noExplicitCache,
  },
  bedrock: {
    family: 'bedrock',
    namespace: 'bedrock',
    label: 'Amazon Bedrock',
    reasoningStyle: 'bedrock-reasoning-config',
    // Converse takes system blocks only before the messages (the AI SDK refuses a later system message).
    laterSystemMessages: 'user-text',
    stopSequences: true,
    remoteUrls: { image: false, pdf: false },
    // Converse cache points; Bedrock's default lifetime is Anthropic's 5 minutes, `1h` is sent as its ttl (a
    // lifetime Anthropic adds later as the nearer of the two: cache-lifetime.ts).
    cacheMarker: (control) => ({ bedrock: { cachePoint: nearestKnownCacheLifetime(control.ttl) === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } } }),
  },
};

/** The profile of an AI SDK family. */
export function vendorProfile(family: AiSdkFamily): AiSdkVendorProfile {
  return PROFILES[family];
}

/**
 * Whether a call goes to Claude on Bedrock, by the model id as the Bedrock package itself tells: Claude reads
 * Anthropic's own fields (`thinking`, `output_config`, `tool_choice`) from Converse's `additionalModelRequestFields`.
 */
export function isClaudeOnBedrock(profile: Pick<AiSdkVendorProfile, 'family'>, upstreamModel: string): boolean {
  return profile.family === 'bedrock' && upstreamModel.includes('anthropic');
}

/** Whether a family is served through the AI SDK. */
export function isAiSdkFamily(family: ApiFamily): family is AiSdkFamily {
  return family !== 'anthropic';
}
