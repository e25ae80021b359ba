/**
 * The `thinkingBudget` a Gemini model is sent, within what Google accepts and leaving the answer room. Gemini
 * counts thinking inside `maxOutputTokens` (a budget as large as the output ends the turn at MAX_TOKENS with
 * no answer), and refuses a budget outside the model's range with a 400 (`The thinking budget (N) is
 * invalid.`). The AI SDK sizes an effort's budget from the model's largest output (65,536) rather than the
 * call's, so `high` on 2.5 Pro was 32,768 beside Claude Code's `max_tokens` of 32,000. Pure.
 * @see https://ai.google.dev/gemini-api/docs/thinking#set-budget
 */
import type { JSONObject } from '@ai-sdk/provider';
import type { PortableReasoning, ReasoningOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';
import { acceptedLevel, geminiTakesThinkingLevel, levelInsteadOfBudget } from '#src/providers/ai-sdk/gemini-thinking-level.ts';

/** A model's documented `thinkingBudget` range (-1, dynamic thinking, aside). */
export interface ThinkingBudgetRange {
  min: number;
  max: number;
}

/**
 * Google's documented range for a Gemini 2.5 model: Pro 128 to 32,768 (thinking cannot be turned off), Flash
 * 0 to 24,576, Flash-Lite 0 or 512 to 24,576. Undefined for the others: Gemini 3 and later take a
 * `thinkingLevel` (`gemini-thinking-level.ts`), and older models do not think.
 */
export function geminiBudgetRange(modelId: string): ThinkingBudgetRange | undefined {
  const id = modelId.toLowerCase();
  if (id.includes('gemini-2.5-pro')) return { min: 128, max: 32_768 };
  if (id.includes('gemini-2.5-flash-lite')) return { min: 512, max: 24_576 };
  if (id.includes('gemini-2.5-flash')) return { min: 1, max: 24_576 };
  return undefined;
}

/**
 * The share of the call's output an effort may think for: the AI SDK's own percentages, applied to the
 * output the client allowed rather than the model's largest. `max` thinks as much as `xhigh`, the most that
 * still leaves the answer a tenth.
 */
export const EFFORT_SHARE: Readonly<Record<Exclude<PortableReasoning, 'none' | 'provider-default'>, number>> = {
  minimal: 0.02,
  low: 0.1,
  medium: 0.3,
  high: 0.6,
  xhigh: 0.9,
  max: 0.9,
};

/**
 * The reasoning options with the budget Gemini can take: an explicit budget (`thinking.budget_tokens`) kept
 * below `maxOutputTokens` and within the model's range, and the effort beside it dropped; on a 2.5 model, an
 * effort without a budget becomes the effort's share of `maxOutputTokens`. A change is a warning. Gemini 3
 * and later get a level instead of a budget (`levelInsteadOfBudget`), and every effort there, `none`
 * included, becomes a level the model accepts (`acceptedLevel`).
 */
export function fitGeminiThinkingBudget({
  reasoning,
  modelId,
  maxOutputTokens,
}: {
  reasoning: ReasoningOptions;
  modelId: string;
  maxOutputTokens: number | undefined;
}): { value: ReasoningOptions; warnings: string[] } {
  if (geminiTakesThinkingLevel(modelId)) {
    const leveled = levelInsteadOfBudget({ reasoning, modelId, maxOutputTokens });
    const accepted = acceptedLevel({ reasoning: leveled.value, modelId });
    return { value: accepted.value, warnings: [...leveled.warnings, ...accepted.warnings] };
  }
  const warnings: string[] = [];
  const google = (reasoning.providerOptions?.google ?? {}) as JSONObject;
  const thinkingConfig = (google.thinkingConfig ?? {}) as JSONObject;
  const range = geminiBudgetRange(modelId);
  const explicit = typeof thinkingConfig.thinkingBudget === 'number' ? thinkingConfig.thinkingBudget : undefined;
  const effort = reasoning.reasoning;
  let budget: number;
  if (explicit !== undefined) budget = explicit;
  else if (range && maxOutputTokens !== undefined && effort !== undefined && effort in EFFORT_SHARE) {
    budget = Math.floor(maxOutputTokens * EFFORT_SHARE[effort as keyof typeof EFFORT_SHARE]);
  } else return { value: reasoning, warnings };

  let fitted = maxOutputTokens !== undefined ? Math.min(budget, maxOutputTokens - 1) : budget;
  if (range) fitted = Math.min(range.max, Math.max(range.min, fitted));
  if (explicit !== undefined && fitted !== explicit) warnings.push(`thinking.budget_tokens ${explicit} sent to ${modelId} as thinkingBudget ${fitted}: within its range and below maxOutputTokens`);
  if (maxOutputTokens !== undefined && fitted >= maxOutputTokens) warnings.push(`thinkingBudget ${fitted} (the least ${modelId} takes) leaves no room for the answer in max_tokens ${maxOutputTokens}`);
  const { reasoning: _resolved, ...rest } = reasoning;
  return { value: { ...rest, providerOptions: { ...reasoning.providerOptions, google: { ...google, thinkingConfig: { ...thinkingConfig, thinkingBudget: fitted } } } }, warnings };
}
