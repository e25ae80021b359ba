/**
 * What one generation's inference calls share: the GenAI conventions' request attributes of the client
 * inference span (`docs/gen-ai/client-inference.md`), read once from the request and written on the generation
 * span and on every attempt's span, as each attempt sends the same request to its vendor. Conditionally
 * Required there: `gen_ai.conversation.id` (when one is readily available: the request's session id),
 * `gen_ai.request.stream` (if and only if the call streamed: an attempt streams exactly when the request does),
 * `gen_ai.request.top_k` (when set) and `gen_ai.output.type` (when the request asks for an output format);
 * Recommended: `max_tokens`, `temperature`, `top_p`, `stop_sequences` and `gen_ai.request.reasoning.level`.
 * @see https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/client-inference.md
 */
import type { MessageRequest } from '#src/api-types.ts';
import { requestedEffort } from '#src/request/requested-effort.ts';
import type { GatewaySpanAttributes } from '#src/observability/broadcast/genai-attributes.ts';

/** The request values every inference span of one generation carries, each where the request has it. */
export interface InferenceRequest {
  conversationId: string | null;
  stream: boolean;
  maxTokens: number;
  temperature: number | undefined;
  topP: number | undefined;
  topK: number | undefined;
  stopSequences: string[] | undefined;
  reasoningLevel: string | undefined;
  outputType: string | undefined;
}

/**
 * `gen_ai.output.type` of an `output_config.format`: a JSON schema asks for JSON. Any other format type is
 * forwarded to Anthropic-format upstreams unread, so the gateway cannot say which modality it asks for.
 */
function outputTypeOf(request: MessageRequest): string | undefined {
  const format = request.output_config?.format as { type?: unknown } | null | undefined;
  return format?.type === 'json_schema' ? 'json' : undefined;
}

/**
 * The shared request values of a generation, read once. The reasoning level is the effort the answer was asked
 * at (`requestedEffort`: the last system message's `output_config.effort`, else the top-level one), the exact
 * string an Anthropic-format upstream receives; a translated vendor gets the same level through its reasoning
 * control. A thinking budget is not a level, and the conventions have no attribute for one.
 */
export function inferenceRequest(request: MessageRequest, stream: boolean, sessionId: string | null): InferenceRequest {
  const typed = request as MessageRequest & Record<string, unknown>;
  const stop = typed.stop_sequences;
  return {
    conversationId: sessionId,
    stream,
    maxTokens: request.max_tokens,
    temperature: typeof typed.temperature === 'number' ? typed.temperature : undefined,
    topP: typeof typed.top_p === 'number' ? typed.top_p : undefined,
    topK: typeof typed.top_k === 'number' ? typed.top_k : undefined,
    stopSequences: Array.isArray(stop) ? stop.filter((entry): entry is string => typeof entry === 'string') : undefined,
    reasoningLevel: requestedEffort(request) ?? undefined,
    outputType: outputTypeOf(request),
  };
}

/** Writes `shared` onto a span's attributes: each value the request has, nothing for what it has not. */
export function addInferenceRequestAttributes(attributes: GatewaySpanAttributes, shared: InferenceRequest): void {
  attributes['gen_ai.request.max_tokens'] = shared.maxTokens;
  // The conventions: set if and only if the request streamed (unset reads as not streaming).
  if (shared.stream) attributes['gen_ai.request.stream'] = true;
  if (shared.conversationId) attributes['gen_ai.conversation.id'] = shared.conversationId;
  if (shared.temperature !== undefined) attributes['gen_ai.request.temperature'] = shared.temperature;
  if (shared.topP !== undefined) attributes['gen_ai.request.top_p'] = shared.topP;
  if (shared.topK !== undefined) attributes['gen_ai.request.top_k'] = shared.topK;
  if (shared.stopSequences) attributes['gen_ai.request.stop_sequences'] = shared.stopSequences;
  if (shared.reasoningLevel) attributes['gen_ai.request.reasoning.level'] = shared.reasoningLevel;
  if (shared.outputType) attributes['gen_ai.output.type'] = shared.outputType;
}
