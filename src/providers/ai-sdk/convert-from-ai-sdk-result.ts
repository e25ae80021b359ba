/**
 * Converts an AI SDK `doGenerate` result into an Anthropic message: text, thinking (with a replayable
 * signature), redacted thinking and tool_use blocks in the vendor's order, the stop reason, and usage in
 * Anthropic's convention. `model` is the model the vendor says answered (else the id asked for); the runner sets the gateway slug, provider and cost.
 */
import { randomUUID } from 'node:crypto';
import type { JSONObject, LanguageModelV4Content, LanguageModelV4GenerateResult, SharedV4ProviderMetadata, SharedV4Warning } from '@ai-sdk/provider';
import type { MessageRequest, MessageResponse, ResponseContentBlock, ThinkingBlock, ToolUseBlock } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertFromAiSdkUsage } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';
import { mapAiSdkFinishReason } from '#src/providers/ai-sdk/map-ai-sdk-finish-reason.ts';
import { guardrailBlockedPrompt, type GuardrailFinish } from '#src/providers/ai-sdk/bedrock-guardrail-billing.ts';
import { markedBlockedBeforeModel } from '#src/providers/refusal-before-model.ts';
import { encodeReasoningSignature, isRedactedReasoning, metadataFor, partSignature, type SignatureTarget } from '#src/providers/ai-sdk/reasoning-signature.ts';

/** Arguments of `convertFromAiSdkResult`. */
export interface ConvertFromAiSdkResultOptions {
  result: Pick<LanguageModelV4GenerateResult, 'content' | 'finishReason' | 'usage' | 'providerMetadata' | 'response'>;
  profile: AiSdkVendorProfile;
  /** Provider slug, for errors. */
  provider: string;
  /** The vendor's model id the call asked for: the message's `model` when the answer names none. */
  upstreamModel: string;
  /** The request's estimated input tokens, asked only when the vendor reported none. */
  estimateInput: () => number;
  /**
   * Whether a text's signature gets its carrier block (see `signatureCarrierBlock`): only when the request
   * asked for thinking, since a client that did not reads the answer's first block as its text.
   */
  textSignatures?: boolean;
}

/**
 * Whether the request asks for thinking (`thinking.type` enabled or adaptive): a client that does expects
 * thinking blocks ahead of the text, as Anthropic answers.
 */
export function asksForThinking(request: Pick<MessageRequest, 'thinking'>): boolean {
  const type = request.thinking?.type;
  return type === 'enabled' || type === 'adaptive';
}

/** A fresh Anthropic-style message id. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * The empty thinking block that carries a vendor's signature of a tool call or a text to the next turn, when
 * there is one; it is placed right before the block it signs. Before, not after: an answer must still end
 * with its text, since clients such as Claude Code print the last block as the answer.
 */
export function signatureCarrierBlock(providerMetadata: SharedV4ProviderMetadata | undefined, profile: AiSdkVendorProfile, target: SignatureTarget): ThinkingBlock | undefined {
  if (!profile.signsParts) return undefined;
  const metadata = partSignature(providerMetadata, profile.namespace);
  if (!metadata) return undefined;
  return { type: 'thinking', thinking: '', signature: encodeReasoningSignature({ namespace: profile.namespace, metadata, target }) };
}

/** The Anthropic blocks a reasoning part can become. */
export type ReasoningOutputBlock = ThinkingBlock | { type: 'redacted_thinking'; data: string };

/** A reasoning part as an Anthropic block: `redacted_thinking` for redacted reasoning, else `thinking` with a signature. */
export function reasoningBlock(text: string, providerMetadata: SharedV4ProviderMetadata | undefined, profile: AiSdkVendorProfile): ReasoningOutputBlock {
  const metadata = metadataFor(providerMetadata, profile.namespace);
  const signature = encodeReasoningSignature({ namespace: profile.namespace, metadata });
  if (isRedactedReasoning(metadata)) return { type: 'redacted_thinking', data: signature };
  return { type: 'thinking', thinking: text, signature };
}

/**
 * Parses a tool call's JSON input. Anthropic's `input` is always an object, so anything else (broken JSON
 * from the model, a bare string) is a malformed answer rather than something to patch up.
 */
export function parseToolInput(input: string, provider: string): JSONObject {
  if (input.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch (cause) {
    throw new UpstreamError({ provider, kind: 'malformed_response', message: `Upstream ${provider} returned tool input that is not JSON`, rawBody: input.slice(0, 4096), cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UpstreamError({ provider, kind: 'malformed_response', message: `Upstream ${provider} returned tool input that is not a JSON object`, rawBody: input.slice(0, 4096) });
  }
  return parsed as JSONObject;
}

/**
 * The input of a tool call the output limit cut off: what already parses as an object, else `{}`. Anthropic
 * answers such a call as an incomplete `tool_use` under `stop_reason: max_tokens`, an answer to retry with a
 * higher limit; a vendor's half-written arguments are that answer, not a malformed one.
 */
export function cutToolInput(input: string, provider: string): JSONObject {
  try {
    return parseToolInput(input, provider);
  } catch {
    return {};
  }
}

/**
 * A refusal's details, marked when the vendor's guardrail refused the prompt before its model ran (Bedrock),
 * which it does not bill as inference (src/providers/refusal-before-model.ts). A JSON answer and a stream both.
 */
export function refusalDetails<T extends object>(details: T, finish: GuardrailFinish): T {
  return guardrailBlockedPrompt(finish) ? markedBlockedBeforeModel(details) : details;
}

/** Builds the Anthropic message; an `error` or `interrupted` finish is thrown as an `UpstreamError`. */
export function convertFromAiSdkResult({ result, profile, provider, upstreamModel, estimateInput, textSignatures = false }: ConvertFromAiSdkResultOptions): {
  value: MessageResponse;
  warnings: string[];
} {
  const finish = mapAiSdkFinishReason(result.finishReason, profile.label);
  if (finish.outcome === 'failure') {
    throw new UpstreamError({ provider, kind: finish.kind, message: `Upstream ${provider} failed: ${finish.detail}` });
  }
  const warnings: string[] = [];
  const content: ResponseContentBlock[] = [];
  const cut = finish.stopReason === 'max_tokens';
  for (const part of result.content) {
    const target = part.type === 'tool-call' && !part.providerExecuted ? 'tool_use' : part.type === 'text' && textSignatures ? 'text' : undefined;
    const carrier = target ? signatureCarrierBlock(part.providerMetadata, profile, target) : undefined;
    if (carrier) content.push(carrier);
    const block = convertContentPart(part, { profile, provider, warnings, cut });
    if (block) content.push(block);
  }
  const stopSequence = stopSequenceOf(result.providerMetadata, profile);
  const message: MessageResponse = {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    // The model the vendor says answered (OpenAI's `model`, Gemini's `modelVersion`): a dated snapshot of an alias.
    model: result.response?.modelId || upstreamModel,
    content,
    stop_reason: finish.stopReason,
    stop_sequence: finish.stopReason === 'stop_sequence' ? (stopSequence ?? null) : null,
    usage: convertFromAiSdkUsage(result.usage, { inputTokens: estimateInput, outputCharacters: () => contentCharacters(result.content) }),
  };
  if (finish.refusal) message.stop_details = refusalDetails(finish.refusal, { finishReason: result.finishReason, usage: result.usage, providerMetadata: result.providerMetadata });
  return { value: message, warnings };
}

/** The characters of what the model wrote (text, reasoning, tool input), for an output estimate. */
function contentCharacters(content: readonly LanguageModelV4Content[]): number {
  let characters = 0;
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') characters += part.text.length;
    else if (part.type === 'tool-call') characters += part.input.length;
  }
  return characters;
}

function convertContentPart(
  part: LanguageModelV4Content,
  context: { profile: AiSdkVendorProfile; provider: string; warnings: string[]; cut: boolean },
): ResponseContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning':
      return reasoningBlock(part.text, part.providerMetadata, context.profile);
    case 'tool-call':
      if (part.providerExecuted) {
        context.warnings.push(`provider-executed tool call ${part.toolName} dropped`);
        return undefined;
      }
      return {
        type: 'tool_use',
        id: part.toolCallId,
        name: part.toolName,
        input: (context.cut ? cutToolInput(part.input, context.provider) : parseToolInput(part.input, context.provider)) as ToolUseBlock['input'],
      };
    case 'tool-result':
    case 'tool-approval-request':
    case 'source':
    case 'file':
    case 'reasoning-file':
    case 'custom':
      context.warnings.push(`${part.type} output dropped: it has no Anthropic content block`);
      return undefined;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown AI SDK content ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The stop sequence that fired, where the vendor says (Bedrock's `stopSequence` metadata). */
export function stopSequenceOf(providerMetadata: SharedV4ProviderMetadata | undefined, profile: AiSdkVendorProfile): string | undefined {
  const value = metadataFor(providerMetadata, profile.namespace).stopSequence;
  return typeof value === 'string' ? value : undefined;
}

/** One AI SDK warning as a log line. */
export function formatWarning(warning: SharedV4Warning): string {
  if (warning.type === 'other') return warning.message;
  const subject = 'feature' in warning ? warning.feature : 'setting' in warning ? String(warning.setting) : 'warning';
  const details = 'details' in warning && warning.details ? ` (${warning.details})` : '';
  return `${warning.type}: ${subject}${details}`;
}
