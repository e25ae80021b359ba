/**
 * The GenAI attribute names copied into the gateway match the OpenTelemetry semantic-conventions package where
 * it still has the current name, and none is one the conventions deprecated or renamed.
 */
import { describe, expect, it } from 'vitest';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { CHAT_OPERATION, GEN_AI, genAiProviderName } from '#src/observability/broadcast/genai-attributes.ts';
import { DEPRECATED_GEN_AI_NAMES } from '#test/helpers/genai-deprecated-names.ts';

// The package's GenAI constants stop before the conventions moved to their own repository, which then renamed
// the cache-write count (open-telemetry/semantic-conventions-genai, changelog.d/440.breaking.md) and added the
// requested reasoning level (its model/gen-ai/registry.yaml and docs/gen-ai/client-inference.md).
const PACKAGE_NAMES: Record<Exclude<keyof typeof GEN_AI, 'usageCacheWriteInputTokens' | 'requestReasoningLevel'>, string> = {
  operationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
  providerName: semconv.ATTR_GEN_AI_PROVIDER_NAME,
  requestModel: semconv.ATTR_GEN_AI_REQUEST_MODEL,
  requestMaxTokens: semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  requestTemperature: semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE,
  requestTopP: semconv.ATTR_GEN_AI_REQUEST_TOP_P,
  requestTopK: semconv.ATTR_GEN_AI_REQUEST_TOP_K,
  requestStopSequences: semconv.ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  requestStream: semconv.ATTR_GEN_AI_REQUEST_STREAM,
  outputType: semconv.ATTR_GEN_AI_OUTPUT_TYPE,
  responseId: semconv.ATTR_GEN_AI_RESPONSE_ID,
  responseModel: semconv.ATTR_GEN_AI_RESPONSE_MODEL,
  responseFinishReasons: semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  responseTimeToFirstChunk: semconv.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  usageInputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  usageOutputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  usageCacheReadInputTokens: semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  usageReasoningOutputTokens: semconv.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  conversationId: semconv.ATTR_GEN_AI_CONVERSATION_ID,
  inputMessages: semconv.ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: semconv.ATTR_GEN_AI_OUTPUT_MESSAGES,
  systemInstructions: semconv.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
};

describe('GenAI semantic conventions', () => {
  it.each(Object.entries(PACKAGE_NAMES))('%s is %s', (name, value) => {
    expect(GEN_AI[name as keyof typeof GEN_AI]).toBe(value);
  });

  it('writes the cache-write count under its current name, and no deprecated name at all', () => {
    expect(GEN_AI.usageCacheWriteInputTokens).toBe('gen_ai.usage.cache_write.input_tokens');
    expect(DEPRECATED_GEN_AI_NAMES[semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]).toBe(GEN_AI.usageCacheWriteInputTokens);
    expect(Object.values(GEN_AI).filter((name) => name in DEPRECATED_GEN_AI_NAMES)).toEqual([]);
  });

  it('writes the requested reasoning level under the name the GenAI repository gives it', () => {
    expect(GEN_AI.requestReasoningLevel).toBe('gen_ai.request.reasoning.level');
  });

  it('names the chat operation and well-known providers as the conventions do', () => {
    expect(CHAT_OPERATION).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    expect(genAiProviderName('bedrock')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_AWS_BEDROCK);
    expect(genAiProviderName('google')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI);
    expect(genAiProviderName('azure')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_AZURE_AI_OPENAI);
    expect(genAiProviderName('mistral')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_MISTRAL_AI);
    expect(genAiProviderName('xai')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_X_AI);
    expect(genAiProviderName('my-vllm')).toBe('my-vllm');
  });
});
