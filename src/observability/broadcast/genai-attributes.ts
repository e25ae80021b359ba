/**
 * The OpenTelemetry GenAI semantic-convention names the OTLP export uses. They are copied here rather than
 * imported from `@opentelemetry/semantic-conventions/incubating`, as that package advises for its incubating
 * entry point. The GenAI conventions have moved to their own repository (open-telemetry/semantic-conventions-genai,
 * `model/gen-ai/registry.yaml`), which renamed `gen_ai.usage.cache_creation.input_tokens` to
 * `gen_ai.usage.cache_write.input_tokens` (its PR 440) and added `gen_ai.request.reasoning.level` after the
 * package's last GenAI constants: a unit test checks every other name against the package and none against
 * the deprecated ones.
 * @see https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/client-inference.md
 */
import type { AttributeValue } from '@opentelemetry/api';

/** Span attribute names. */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestTopK: 'gen_ai.request.top_k',
  requestStopSequences: 'gen_ai.request.stop_sequences',
  requestStream: 'gen_ai.request.stream',
  requestReasoningLevel: 'gen_ai.request.reasoning.level',
  outputType: 'gen_ai.output.type',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseTimeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheWriteInputTokens: 'gen_ai.usage.cache_write.input_tokens',
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  conversationId: 'gen_ai.conversation.id',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
} as const;

/** A GenAI attribute name: one of `GEN_AI`'s values. */
export type GenAiAttributeName = (typeof GEN_AI)[keyof typeof GEN_AI];

/**
 * The attributes of a gateway span: the GenAI names above, the general OpenTelemetry names the spans use and
 * the gateway's own `switchboard.*`. Span builders write their keys as string literals rather than computed
 * from `GEN_AI` (`[GEN_AI.requestModel]: …`): V8 builds an object literal with computed keys one property at a
 * time, before its optimizing tier through a runtime call each (about a third of the instructions of building
 * a generation's spans, bench/otlp-instructions.ts); this type holds every literal key to a known name.
 */
export type GatewaySpanAttributes = { [Name in GenAiAttributeName | 'http.response.status_code' | 'server.address' | 'server.port' | 'user.id' | 'error.type' | `switchboard.${string}`]?: AttributeValue };

/** The `gen_ai.operation.name` of a Messages call. */
export const CHAT_OPERATION = 'chat';

// Well-known `gen_ai.provider.name` values for the catalog's provider slugs; any other slug is sent as it is.
const PROVIDER_NAMES: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  azure: 'azure.ai.openai',
  bedrock: 'aws.bedrock',
  google: 'gcp.gemini',
  deepseek: 'deepseek',
  groq: 'groq',
  mistral: 'mistral_ai',
  perplexity: 'perplexity',
  xai: 'x_ai',
};

/** The `gen_ai.provider.name` of a provider slug. */
export function genAiProviderName(slug: string): string {
  return PROVIDER_NAMES[slug] ?? slug;
}

// A catalog has a few hundred models: each name is built once and kept as one flat string.
const spanNames = new Map<string, string>();

/**
 * `chat <model>`, the GenAI conventions' name of an inference span, as a flat string: a concatenation is a
 * pair of strings that the OTLP exporter's serialiser reads (twice, one UTF-16 unit at a time) at about twice
 * the cost per character of one flat string (bench/JOURNAL.md, 2026-11-27 night).
 */
export function chatSpanName(model: string): string {
  let name = spanNames.get(model);
  if (name === undefined) {
    // JSON.parse makes a new sequential string of the concatenation's characters.
    name = JSON.parse(JSON.stringify(`${CHAT_OPERATION} ${model}`)) as string;
    if (spanNames.size < 1_000) spanNames.set(model, name);
  }
  return name;
}
