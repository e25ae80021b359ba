/**
 * The usage an OpenAI Responses answer that failed still reports. A response that ends `failed` carries the
 * counts of what the model read and wrote before it stopped (`response.usage`), and OpenAI bills them; the AI
 * SDK puts them on its stream's `finish` part after the `error` part, or, when the failure comes before any
 * output (a stream) or in a JSON body, only in the error it throws: the `response.failed` frame as `data` of
 * an `APICallError`, the body as `responseBody` of one, or the body as `value` of a `TypeValidationError` (a
 * failed response's `error` has no `type`, which the SDK's schema requires). Pure functions.
 * @see https://platform.openai.com/docs/api-reference/responses/object (status, error, usage)
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/response/failed
 */
import { APICallError, TypeValidationError, type LanguageModelV4Usage } from '@ai-sdk/provider';
import type { Usage } from '#src/api-types.ts';
import { convertFromAiSdkUsage } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';

/** A Responses `usage` object, as far as its counts go. */
interface ResponsesUsage {
  input_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  output_tokens?: unknown;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
}

const NO_ESTIMATE = { inputTokens: () => 0, outputCharacters: () => 0 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * Converts a Responses `usage` as the AI SDK does for a finished answer (prompt and output counts include
 * cached and reasoning tokens), then to Anthropic's convention; undefined without both counts.
 */
function convertResponsesUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const raw = usage as ResponsesUsage;
  const input = countOf(raw.input_tokens);
  const output = countOf(raw.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = countOf(raw.input_tokens_details?.cached_tokens) ?? 0;
  const cacheWrite = countOf(raw.input_tokens_details?.cache_write_tokens);
  const reasoning = countOf(raw.output_tokens_details?.reasoning_tokens) ?? 0;
  const converted: LanguageModelV4Usage = {
    inputTokens: { total: input, noCache: input - cacheRead - (cacheWrite ?? 0), cacheRead, cacheWrite },
    outputTokens: { total: output, text: output - reasoning, reasoning },
    raw: usage as LanguageModelV4Usage['raw'],
  };
  return convertFromAiSdkUsage(converted, NO_ESTIMATE);
}

/** The response object of a Responses body or stream frame that failed (a string is parsed); undefined for anything else. */
export function failedResponseOf(value: unknown): Record<string, unknown> | undefined {
  let parsed = value;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(parsed)) return undefined;
  // A stream frame (`response.failed`) wraps the response object; a JSON body is one.
  const response = parsed.type === 'response.failed' && isRecord(parsed.response) ? parsed.response : parsed;
  return response.status === 'failed' || parsed.type === 'response.failed' ? response : undefined;
}

/** The usage a failed Responses call reported, read from what the AI SDK threw; undefined when it reported none. */
export function billedUsageOfResponsesError(error: unknown): Usage | undefined {
  let carriers: unknown[] = [];
  if (APICallError.isInstance(error)) carriers = [error.data, error.responseBody];
  else if (TypeValidationError.isInstance(error)) carriers = [error.value];
  for (const carrier of carriers) {
    const usage = convertResponsesUsage(failedResponseOf(carrier)?.usage);
    if (usage) return usage;
  }
  return undefined;
}

/**
 * The usage of a stream's `finish` part that followed its `error` part, when the vendor reported its counts:
 * a part without them (the AI SDK leaves them undefined for `usage: null`) is no bill to charge.
 */
export function billedUsageOfFinish(usage: LanguageModelV4Usage): Usage | undefined {
  if (usage.inputTokens.total === undefined || usage.outputTokens.total === undefined) return undefined;
  return convertFromAiSdkUsage(usage, NO_ESTIMATE);
}
