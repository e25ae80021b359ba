/**
 * Converts AI SDK usage to Anthropic's convention. The AI SDK's `inputTokens.total` counts cached tokens;
 * Anthropic's `input_tokens` does not: cache reads and writes have their own fields and prices.
 */
import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import type { Usage } from '#src/api-types.ts';

/** Usage in Anthropic's convention, without the gateway's `cost` and `is_byok`. */
export function convertFromAiSdkUsage(usage: LanguageModelV4Usage): Usage {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const uncached = usage.inputTokens.noCache ?? (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite;
  const converted: Usage = {
    input_tokens: Math.max(0, uncached),
    output_tokens: usage.outputTokens.total ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    service_tier: 'standard',
  };
  if (usage.outputTokens.reasoning !== undefined) converted.output_tokens_details = { reasoning_tokens: usage.outputTokens.reasoning };
  return converted;
}
