/**
 * Gemini 3 and later think at a `thinkingLevel` rather than within a `thinkingBudget`. Google still accepts a
 * budget there for backwards compatibility but warns that Gemini 3 Pro may then reason worse, and refuses a
 * request with both (`You can only set only one of thinking budget and thinking level.`). A client's
 * `thinking.budget_tokens` therefore reaches these models as the level it fits, sent the way an effort is
 * (the AI SDK's `reasoning`, which `@ai-sdk/google` turns into `thinkingConfig.thinkingLevel` among the
 * model's levels), so a budget and the effort it stands for get the same level. Pure.
 * @see https://ai.google.dev/gemini-api/docs/thinking#thinking-levels
 */
import type { JSONObject } from '@ai-sdk/provider';
import { effortForBudget, type ReasoningOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';
import { geminiThinkingLevels, nearestGeminiLevel } from '#src/providers/ai-sdk/gemini-thinking-levels.ts';

// `gemini-3-pro-preview`, `gemini-3.1-flash-lite`, `models/gemini-3.5-flash`: the major version of a named model.
const versionPattern = /(?:^|[/.])gemini-(\d+)(?:\.\d+)?-/i;

/**
 * Whether a Gemini model is steered by `thinkingLevel`: a versioned model of generation 3 or later, as
 * `@ai-sdk/google` classifies it, except Gemini 3 Pro Image, which keeps budgets. An id without a version
 * (`gemini-exp-…`) keeps the budget, which every thinking Gemini model accepts.
 */
export function geminiTakesThinkingLevel(modelId: string): boolean {
  const major = Number(versionPattern.exec(modelId)?.[1]);
  return major >= 3 && !modelId.toLowerCase().includes('gemini-3-pro-image');
}

/**
 * The reasoning options of a level-steered model (`geminiTakesThinkingLevel`) with the client's budget
 * replaced by a level: the request's effort when it set one (an effort already names a level), else the
 * level of the budget (`effortForBudget`'s table), taken below `maxOutputTokens` as Gemini counts thinking
 * inside it. `thinkingBudget` is removed, so the AI SDK sends the level alone. Options without a budget are
 * returned as they are.
 */
export function levelInsteadOfBudget({
  reasoning,
  modelId,
  maxOutputTokens,
}: {
  reasoning: ReasoningOptions;
  modelId: string;
  maxOutputTokens: number | undefined;
}): { value: ReasoningOptions; warnings: string[] } {
  const google = (reasoning.providerOptions?.google ?? {}) as JSONObject;
  const { thinkingBudget, ...thinkingConfig } = (google.thinkingConfig ?? {}) as JSONObject;
  if (typeof thinkingBudget !== 'number') return { value: reasoning, warnings: [] };
  const usable = maxOutputTokens !== undefined ? Math.min(thinkingBudget, maxOutputTokens - 1) : thinkingBudget;
  const level = reasoning.reasoning ?? effortForBudget(usable);
  const why = reasoning.reasoning ? 'the request\'s effort' : 'the level of its budget';
  return {
    value: { reasoning: level, providerOptions: { ...reasoning.providerOptions, google: { ...google, thinkingConfig } } },
    warnings: [`thinking.budget_tokens ${thinkingBudget} sent to ${modelId} as thinkingLevel ${level} (${why}): Gemini 3 and later think at levels`],
  };
}

/**
 * The reasoning options of a level-steered model with the level it accepts (`nearestGeminiLevel` among
 * `geminiThinkingLevels`): a level the model refuses would be a 400 (`medium` on Gemini 3 Pro, which the AI SDK
 * lists for it). A change is a warning; options without an effort are returned as they are.
 */
export function acceptedLevel({ reasoning, modelId }: { reasoning: ReasoningOptions; modelId: string }): { value: ReasoningOptions; warnings: string[] } {
  const asked = reasoning.reasoning;
  if (asked === undefined) return { value: reasoning, warnings: [] };
  const levels = geminiThinkingLevels(modelId);
  const level = nearestGeminiLevel(asked, levels);
  if (level === asked) return { value: reasoning, warnings: [] };
  return {
    value: { ...reasoning, reasoning: level },
    warnings: [`thinkingLevel ${asked} sent to ${modelId} as ${level}: the nearest of the levels it accepts (${levels.join(', ')})`],
  };
}
