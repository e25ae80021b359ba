/**
 * Whether Amazon Bedrock's guardrail refused a Converse call's prompt before the model ran. Bedrock reports a
 * guardrail's intervention as `stopReason: guardrail_intervened` with the guardrail's blocked message as the
 * answer's text, whether it blocked the prompt or the model's response, and bills the two differently: "If a
 * guardrail blocks the input prompt, you're charged for the guardrail evaluation. There are no charges for
 * foundation model inference calls"; one that blocks the response bills the model's inference too. (The
 * guardrail's own evaluation is a separate AWS charge, per text unit and policy, outside an endpoint's token
 * prices.) The prompt was blocked when the model wrote nothing (Bedrock reports no output tokens: a response
 * the guardrail blocked had some) and the guardrail trace, when the call carries one, holds no model output.
 * Claude's own refusal on Converse (`content_filtered`) is not this: see src/messages/refusal-billing.ts.
 * Pure.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-how.html (How charges for Amazon Bedrock Guardrails are calculated)
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_GuardrailTraceAssessment.html (`modelOutput`)
 */
import type { LanguageModelV4FinishReason, LanguageModelV4Usage, SharedV4ProviderMetadata } from '@ai-sdk/provider';

/** Bedrock's stop reason for a guardrail's intervention. */
const GUARDRAIL_INTERVENED = 'guardrail_intervened';

/** What a finished Converse call says about its guardrail. */
export interface GuardrailFinish {
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
  /** The call's provider metadata: the Bedrock package puts a Converse answer's `trace` under `bedrock`. */
  providerMetadata?: SharedV4ProviderMetadata | undefined;
}

/** The model output a guardrail trace holds (what the model wrote before the guardrail blocked it), if any. */
function tracedModelOutput(providerMetadata: SharedV4ProviderMetadata | undefined): unknown[] {
  const trace = providerMetadata?.bedrock?.trace as { guardrail?: { modelOutput?: unknown } } | null | undefined;
  const output = trace?.guardrail?.modelOutput;
  return Array.isArray(output) ? output : [];
}

/** Whether Bedrock's guardrail blocked the call's prompt, so the model never ran (and its inference is not billed). */
export function guardrailBlockedPrompt({ finishReason, usage, providerMetadata }: GuardrailFinish): boolean {
  if (finishReason.raw !== GUARDRAIL_INTERVENED) return false;
  return usage.outputTokens.total === 0 && tracedModelOutput(providerMetadata).length === 0;
}
