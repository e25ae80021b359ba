/**
 * Whether the upstream bills a refused call, by the rule of the vendor that refused it. Pure functions.
 *
 * - Anthropic's own refusal (an Anthropic-format endpoint, whose `stop_details` names the category): a refusal
 *   after output began bills the input and the output already produced; one before any output is billed only
 *   in the categories Anthropic names as billed (`ANTHROPIC_REFUSAL_BILLING`, its source and date there), and
 *   in any other category, or with a null one, its token counts appear in `usage` but are not charged.
 * - A vendor's filter that refused the prompt before its model ran: Amazon Bedrock's guardrail on the input,
 *   which AWS does not bill as model inference (the translator marks it: src/providers/refusal-before-model.ts,
 *   src/providers/ai-sdk/bedrock-guardrail-billing.ts). Not charged, output or not (the answer's text is the
 *   guardrail's blocked message, not the model's).
 * - Any other translated vendor's refusal stays charged: a content filter mapped to `refusal` (OpenAI's,
 *   Gemini's), a Bedrock guardrail that blocked the model's response (AWS bills the inference), and Claude's
 *   own refusal on Bedrock's Converse API (`content_filtered`). Anthropic's rule applies to Claude there too,
 *   but Converse reports no category, so an unbilled refusal cannot be told from a billed one, and the
 *   gateway does not charge less than the upstream may bill.
 */
import type { ResponseContentBlock } from '#src/api-types.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { blockedBeforeModel } from '#src/providers/refusal-before-model.ts';

/**
 * Anthropic's refusal billing, with where and when it was read. `billedBeforeOutput`: the categories of its
 * table whose refusals before any output are billed ("How refusals are billed", the "Billed before any output"
 * column), as the page stood when `readOn`. `checkedOn`: the last look for a newer table (the stored copies
 * of the page found then were no newer; the categories it names, `cyber`, `bio`, `frontier_llm`,
 * `reasoning_extraction` and `general_harms`, are those of Anthropic's SDK's `RefusalStopDetails.category`).
 * A category added since is unbilled before output until this table says otherwise, as Anthropic's rule
 * bills only those its table names.
 */
export const ANTHROPIC_REFUSAL_BILLING = {
  source: 'https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback',
  section: 'How refusals are billed',
  readOn: '2026-09',
  checkedOn: '2026-11-28',
  billedBeforeOutput: new Set(['bio', 'frontier_llm', 'reasoning_extraction']) as ReadonlySet<string>,
} as const;

/** What decides whether a refused call is billed. */
export interface RefusalBillingInput {
  /** The API family of the endpoint that refused. */
  family: ApiFamily;
  /** `stop_details.category` of the refusal; null when it named none. */
  category: string | null;
  /** The refused call produced output before refusing (a content block of its own; a stream's block started). */
  outputBegan: boolean;
  /** The vendor's filter refused the prompt before its model ran (its `stop_details` marked: `blockedBeforeModel`). */
  blockedBeforeModel?: boolean;
}

/**
 * Whether the upstream bills the refused call: false for a prompt refused before the model ran, and for
 * Anthropic's refusal before any output in a category it does not bill.
 */
export function refusalBilled({ family, category, outputBegan, blockedBeforeModel: blocked = false }: RefusalBillingInput): boolean {
  if (blocked) return false;
  if (outputBegan || family !== 'anthropic') return true;
  return category !== null && ANTHROPIC_REFUSAL_BILLING.billedBeforeOutput.has(category);
}

/**
 * Whether a refused JSON answer's content shows output: any block of the model's own. A `fallback` block
 * marks a hop (an upstream's own server-side fallback), not output; Anthropic's refusal before any output
 * has `content` empty.
 */
export function contentHasOutput(content: readonly Pick<ResponseContentBlock, 'type'>[]): boolean {
  return content.some((block) => block.type !== 'fallback');
}

/** The category a refusal's `stop_details` names, null when none (or no details). */
export function refusalCategoryOf(stopDetails: { category?: unknown } | null | undefined): string | null {
  const category = stopDetails?.category;
  return typeof category === 'string' ? category : null;
}

/** What a refusal's `stop_details` say of its billing: its category, and whether the prompt was refused before the model ran. */
export function refusalOf(stopDetails: { category?: unknown } | null | undefined): { category: string | null; blockedBeforeModel: boolean } {
  return { category: refusalCategoryOf(stopDetails), blockedBeforeModel: blockedBeforeModel(stopDetails) };
}

/** Whether a refused JSON answer from `family` is billed, read from its content and `stop_details`. */
export function answerRefusalBilled(family: ApiFamily, message: { content: readonly Pick<ResponseContentBlock, 'type'>[]; stop_details?: { category?: unknown } | null }): boolean {
  return refusalBilled({ family, ...refusalOf(message.stop_details), outputBegan: contentHasOutput(message.content) });
}
