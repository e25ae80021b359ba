/**
 * Converts AI SDK usage to Anthropic's convention. The AI SDK's `inputTokens.total` counts cached tokens;
 * Anthropic's `input_tokens` does not: cache reads and writes have their own fields and prices.
 */
import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import type { Usage } from '#src/api-types.ts';

interface RawChatUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
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

/** Usage in Anthropic's convention, without the gateway's `cost` and `is_byok`. */
export function convertFromAiSdkUsage(usage: LanguageModelV4Usage): Usage {
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
  return converted;
}
