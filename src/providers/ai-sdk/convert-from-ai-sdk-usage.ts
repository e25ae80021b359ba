/**
 * Converts AI SDK usage to Anthropic's convention. The AI SDK's `inputTokens.total` counts cached tokens;
 * Anthropic's `input_tokens` does not: cache reads and writes have their own fields and prices.
 * A vendor that reports no usage (an OpenAI-compatible server ignoring `stream_options.include_usage`, or
 * ending without its usage chunk) leaves the AI SDK's counts undefined, and one sending null counts has them
 * read as 0 by the AI SDK: either way they are estimated, never taken as 0, which would record and charge the
 * answer as free. So is a count Gemini's `usageMetadata` leaves out (`promptTokenCount`, or
 * `candidatesTokenCount` of an answer that has content), which the AI SDK reads as 0 too.
 */
import type { LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { Usage } from '#src/api-types.ts';
import { CHARACTERS_PER_TOKEN } from '#src/request/estimate-input-tokens.ts';

/** What an estimate of missing counts reads, asked only when a count is missing: the request's input estimate and the answer's characters. */
export interface UsageEstimateSource {
  inputTokens: () => number;
  outputCharacters: () => number;
}

interface RawChatUsage {
  /** Gemini's `usageMetadata` counts. */
  promptTokenCount?: unknown;
  candidatesTokenCount?: unknown;
  totalTokenCount?: unknown;
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  /** Bedrock Converse: its cache writes by lifetime (`5m`, `1h`). */
  cacheDetails?: unknown;
  /** Perplexity: the search context size its request fee is billed by. */
  search_context_size?: unknown;
}

/**
 * Bedrock's cache writes split by lifetime, as Anthropic's `cache_creation` gives them: a one-hour write is
 * priced at its own rate (`cache_write_1h`), so without the split it was charged as a five-minute one.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CacheDetail.html
 */
function cacheCreationOf(raw: RawChatUsage | undefined): Usage['cache_creation'] {
  const details = raw?.cacheDetails;
  if (!Array.isArray(details) || details.length === 0) return undefined;
  let fiveMinutes = 0;
  let oneHour = 0;
  for (const detail of details as { inputTokens?: unknown; ttl?: unknown }[]) {
    const tokens = typeof detail?.inputTokens === 'number' && detail.inputTokens > 0 ? detail.inputTokens : 0;
    if (detail?.ttl === '1h') oneHour += tokens;
    else fiveMinutes += tokens;
  }
  return { ephemeral_5m_input_tokens: fiveMinutes, ephemeral_1h_input_tokens: oneHour };
}

/**
 * Output tokens as billed. OpenAI counts reasoning inside `completion_tokens`; some compatible vendors (xAI)
 * count it outside, which their own `total_tokens` gives away: prompt + completion + reasoning = total. The
 * AI SDK takes `completion_tokens` as the output total either way, so such output would be underpriced.
 */
function billedOutputTokens(usage: LanguageModelV4Usage): number {
  const total = usage.outputTokens.total ?? 0;
  const raw = usage.raw as RawChatUsage | undefined;
  const reasoning = raw?.completion_tokens_details?.reasoning_tokens;
  if (typeof raw?.prompt_tokens !== 'number' || typeof raw.completion_tokens !== 'number' || typeof raw.total_tokens !== 'number') return total;
  if (typeof reasoning !== 'number' || reasoning <= 0) return total;
  return raw.total_tokens === raw.prompt_tokens + raw.completion_tokens + reasoning ? raw.completion_tokens + reasoning : total;
}

/**
 * Whether the vendor's own usage object gives `name` as null: the AI SDK's OpenAI-compatible conversion
 * reads `{"prompt_tokens": null}` as 0 (`?? 0`), so only the raw object tells a missing count from a zero.
 */
function nullCount(raw: RawChatUsage | undefined, name: 'prompt_tokens' | 'completion_tokens'): boolean {
  return typeof raw === 'object' && raw !== null && name in raw && raw[name] === null;
}

/** Whether `raw` is Gemini's `usageMetadata` (its names are its own) without `name` or with it null. */
function missingGeminiCount(raw: RawChatUsage | undefined, name: 'promptTokenCount' | 'candidatesTokenCount'): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  if (!('promptTokenCount' in raw || 'candidatesTokenCount' in raw || 'totalTokenCount' in raw)) return false;
  return typeof raw[name] !== 'number';
}

/**
 * Usage in Anthropic's convention, without the gateway's `cost` and `is_byok`. Counts the vendor did not
 * report are estimated from `estimate` and the usage is marked `estimated`.
 */
export function convertFromAiSdkUsage(usage: LanguageModelV4Usage, estimate: UsageEstimateSource): Usage {
  const raw = usage.raw as RawChatUsage | undefined;
  const noInput = (usage.inputTokens.total === undefined && usage.inputTokens.noCache === undefined) || nullCount(raw, 'prompt_tokens') || missingGeminiCount(raw, 'promptTokenCount');
  // Gemini leaves candidatesTokenCount out of an answer with no content (blocked, empty): that 0 is real.
  const noOutput = usage.outputTokens.total === undefined || nullCount(raw, 'completion_tokens') || (missingGeminiCount(raw, 'candidatesTokenCount') && estimate.outputCharacters() > 0);
  if (noInput || noOutput) return estimatedUsage(usage, estimate, noInput, noOutput);
  return reportedUsage(usage);
}

function reportedUsage(usage: LanguageModelV4Usage): Usage {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const uncached = usage.inputTokens.noCache ?? (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite;
  const converted: Usage = {
    input_tokens: Math.max(0, uncached),
    output_tokens: billedOutputTokens(usage),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    service_tier: 'standard',
  };
  if (usage.outputTokens.reasoning !== undefined) converted.output_tokens_details = { thinking_tokens: usage.outputTokens.reasoning };
  const raw = usage.raw as RawChatUsage | undefined;
  const cacheCreation = cacheWrite > 0 ? cacheCreationOf(raw) : undefined;
  if (cacheCreation) converted.cache_creation = cacheCreation;
  // Perplexity bills each request by it (`pricing.search_request`).
  if (typeof raw?.search_context_size === 'string') converted.search_context_size = raw.search_context_size;
  return converted;
}

function estimatedUsage(usage: LanguageModelV4Usage, estimate: UsageEstimateSource, noInput: boolean, noOutput: boolean): Usage {
  const reported = reportedUsage(usage);
  if (noInput) reported.input_tokens = estimate.inputTokens();
  // What was reported stays the least (Gemini's thinking tokens, counted without the answer's).
  if (noOutput) reported.output_tokens = Math.max(reported.output_tokens, Math.ceil(estimate.outputCharacters() / CHARACTERS_PER_TOKEN));
  reported.estimated = true;
  return reported;
}

/**
 * The speed a translated vendor reports it served a fast call at, in Anthropic's words (`usage.speed`), so a
 * fast call it ran at standard speed is charged the standard prices (routing/attempt.ts `servedPricing`); undefined
 * unless the call asked for fast and the vendor named the tier it ran. OpenAI answers a priority (fast mode)
 * request with that tier in `service_tier`, which the AI SDK's OpenAI Responses model passes on as
 * `providerMetadata.openai.serviceTier`: `priority` (or `fast`, the name of later models) when it ran fast,
 * `default` when OpenAI sent it to standard processing, "billed at standard rates" (its ramp rate limit). Any
 * other value, or none (Chat Completions passes none on), says nothing: the call is charged as asked.
 * @see https://openai.com/api-fast-mode/ (ramp rate limits)
 */
export function servedSpeedOf(providerMetadata: SharedV4ProviderMetadata | undefined, namespace: string, fast: boolean): Usage['speed'] | undefined {
  if (!fast) return undefined;
  const tier = providerMetadata?.[namespace]?.serviceTier;
  if (tier === 'priority' || tier === 'fast') return 'fast';
  return tier === 'default' ? 'standard' : undefined;
}

/** `usage` with its `speed` set to what the vendor reports it served a fast call at ({@link servedSpeedOf}), when it says; the same object. */
export function withServedSpeed(usage: Usage, providerMetadata: SharedV4ProviderMetadata | undefined, namespace: string, fast: boolean | undefined): Usage {
  const speed = servedSpeedOf(providerMetadata, namespace, fast === true);
  if (speed) usage.speed = speed;
  return usage;
}
