/**
 * Maps Anthropic's reasoning controls (`thinking` and `output_config.effort`) to one vendor's: the portable
 * AI SDK `reasoning` level where the vendor speaks in efforts, and the vendor's own token budget where it has
 * one (Gemini `thinkingConfig.thinkingBudget`, Bedrock `reasoningConfig.budgetTokens`).
 */
import type { LanguageModelV4CallOptions, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { MessageRequest, SystemMessageParam } from '#src/api-types.ts';
import { isClaudeOnBedrock, type AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { unsupportedFeature } from '#src/providers/ai-sdk/check-translatable-fields.ts';
import { requestedEffort } from '#src/request/requested-effort.ts';

/** The AI SDK portable reasoning level. */
export type PortableReasoning = NonNullable<LanguageModelV4CallOptions['reasoning']>;

/** What the reasoning mapping adds to the call options. */
export interface ReasoningOptions {
  reasoning?: PortableReasoning;
  providerOptions?: SharedV4ProviderOptions;
}

/**
 * The effort a thinking budget stands for, smallest first: a budget up to `upTo` tokens is `effort` (Anthropic's
 * own guidance starts complex tasks at 16k). Used by vendors without budgets and by Gemini 3's levels.
 * `minimal` is never chosen: a client that enabled thinking asked for some (Anthropic's least budget is 1,024).
 */
export const EFFORT_FOR_BUDGET: readonly { upTo: number; effort: Extract<PortableReasoning, 'low' | 'medium' | 'high'> }[] = [
  { upTo: 4096, effort: 'low' },
  { upTo: 16_384, effort: 'medium' },
  { upTo: Number.POSITIVE_INFINITY, effort: 'high' },
];

/** The effort a thinking budget stands for (see `EFFORT_FOR_BUDGET`). */
export function effortForBudget(budgetTokens: number): PortableReasoning {
  return EFFORT_FOR_BUDGET.find(({ upTo }) => budgetTokens <= upTo)?.effort ?? 'high';
}

/** The efforts Anthropic documents, each the AI SDK level of the same name. */
const EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** The thinking types the translators know; any other is Anthropic's alone. */
const THINKING_TYPES: ReadonlySet<string> = new Set(['enabled', 'disabled', 'adaptive']);

/** The thinking configuration, typed for the known types: the only ones `knownThinking` lets through. */
type KnownThinking = { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'adaptive' };

function knownThinking(thinking: MessageRequest['thinking'], profile: AiSdkVendorProfile): KnownThinking | undefined {
  if (thinking === undefined) return undefined;
  if (!THINKING_TYPES.has(thinking.type)) throw unsupportedFeature(`thinking type ${thinking.type}`, profile);
  return thinking as KnownThinking;
}

function knownEffort(effort: string | null | undefined, profile: AiSdkVendorProfile, path = 'output_config'): PortableReasoning | undefined {
  if (effort === undefined || effort === null) return undefined;
  if (!EFFORTS.has(effort)) throw unsupportedFeature(`${path}.effort ${effort}`, profile);
  return effort as PortableReasoning;
}

/**
 * The effort the answer is generated at (`requestedEffort`: the last system message setting one wins over the
 * top-level `output_config.effort`). Every message's effort is checked, so an unknown one is a 400 even where
 * a later one overrides it.
 */
export function effectiveEffort(request: Pick<MessageRequest, 'output_config' | 'messages'>, profile: AiSdkVendorProfile): PortableReasoning | undefined {
  knownEffort(request.output_config?.effort, profile);
  request.messages.forEach((message, index) => {
    if (message.role === 'system') knownEffort((message as SystemMessageParam).output_config?.effort, profile, `messages[${index}].output_config`);
  });
  return requestedEffort(request) as PortableReasoning | undefined;
}

/**
 * Maps `thinking` and the effective effort (`effectiveEffort`) for one vendor; nothing is added when the client set neither. A
 * thinking type or effort the translators do not know is an `UnsupportedFeatureError` naming it. Thought
 * summaries are asked for only when thinking is `enabled` or `adaptive`, as Anthropic shows thinking only then.
 */
export function convertToAiSdkReasoning({
  request,
  profile,
  upstreamModel = '',
}: {
  request: Pick<MessageRequest, 'thinking' | 'output_config' | 'messages'>;
  profile: AiSdkVendorProfile;
  /** The vendor's model id: Claude on Bedrock takes Anthropic's own thinking switch and effort, other Bedrock models do not. */
  upstreamModel?: string;
}): { value: ReasoningOptions; warnings: string[] } {
  const warnings: string[] = [];
  const thinking = knownThinking(request.thinking, profile);
  const effort = effectiveEffort(request, profile);
  const budget = thinking?.type === 'enabled' ? thinking.budget_tokens : undefined;
  const portable: PortableReasoning | undefined =
    thinking?.type === 'disabled' ? 'none' : (effort ?? (budget !== undefined ? effortForBudget(budget) : undefined));

  // Anthropic returns the model's reasoning only when thinking is on; effort alone shapes the work, not the answer.
  const showsThinking = thinking?.type === 'enabled' || thinking?.type === 'adaptive';

  switch (profile.reasoningStyle) {
    case 'openai-effort': {
      if (!portable) {
        // Adaptive thinking without an effort: the package asks for a summary only beside an effort, so ask here.
        const summary = profile.summarizesReasoning && showsThinking ? { providerOptions: { [profile.namespace]: { reasoningSummary: 'detailed' } } } : {};
        return { value: summary, warnings };
      }
      // The Responses package asks for a `detailed` summary whenever an effort is set, unless told `null`.
      if (profile.summarizesReasoning && !showsThinking && portable !== 'none') {
        return { value: { reasoning: portable, providerOptions: { [profile.namespace]: { reasoningSummary: null } } }, warnings };
      }
      return { value: { reasoning: portable }, warnings };
    }
    case 'compatible-effort':
      // `reasoning_effort: "none"` is rejected by many compatible vendors whose models cannot stop reasoning.
      if (portable === 'none') {
        warnings.push('thinking.disabled not forwarded: OpenAI-compatible vendors have no common switch to turn reasoning off');
        return { value: {}, warnings };
      }
      return { value: portable ? { reasoning: portable } : {}, warnings };
    case 'google-thinking-config': {
      if (thinking?.type === 'disabled') return { value: { reasoning: 'none' }, warnings };
      if (thinking === undefined && effort === undefined) return { value: {}, warnings };
      // Effort alone still sets the budget or level (the package maps `reasoning`), without thought summaries.
      if (!showsThinking) return { value: effort ? { reasoning: effort } : {}, warnings };
      // The effort stays beside a budget: Gemini 2.5 thinks within the budget, Gemini 3 at the effort's level
      // (`fitGeminiThinkingBudget` keeps the one the model takes).
      const thinkingConfig = budget !== undefined ? { thinkingBudget: budget, includeThoughts: true } : { includeThoughts: true };
      return { value: { ...(effort ? { reasoning: effort } : {}), providerOptions: { google: { thinkingConfig } } }, warnings };
    }
    case 'bedrock-reasoning-config': {
      const claude = isClaudeOnBedrock(profile, upstreamModel);
      if (thinking?.type === 'disabled' && claude) {
        // For Claude the package sends nothing for disabled reasoning, and drops the effort with it: the model's
        // default (thinking, on the models that think by default) would apply. Anthropic's own switch goes as sent.
        const reasoningConfig = effort ? { reasoningConfig: { maxReasoningEffort: effort } } : {};
        return { value: { providerOptions: { bedrock: { additionalModelRequestFields: { thinking: { type: 'disabled' } }, ...reasoningConfig } } }, warnings };
      }
      if (thinking?.type === 'disabled') return { value: { reasoning: 'none' }, warnings };
      if (thinking?.type === 'enabled') {
        const reasoningConfig = { type: 'enabled', budgetTokens: thinking.budget_tokens, ...(effort ? { maxReasoningEffort: effort } : {}) };
        return { value: { providerOptions: { bedrock: { reasoningConfig } } }, warnings };
      }
      if (thinking?.type === 'adaptive') {
        const reasoningConfig = { type: 'adaptive', ...(effort ? { maxReasoningEffort: effort } : {}) };
        return { value: { providerOptions: { bedrock: { reasoningConfig } } }, warnings };
      }
      // Claude takes Anthropic's effort on its own, as on Anthropic's API: the package turns an effort without
      // a thinking type into `output_config.effort` only, where its portable `reasoning` would switch Claude's
      // thinking on (adaptive, or a budget), which the client did not ask for and would pay for.
      if (effort && claude) return { value: { providerOptions: { bedrock: { reasoningConfig: { maxReasoningEffort: effort } } } }, warnings };
      return { value: effort ? { reasoning: effort } : {}, warnings };
    }
    default: {
      const unreachable: never = profile.reasoningStyle;
      throw new Error(`unknown reasoning style ${String(unreachable)}`);
    }
  }
}
