/**
 * Whether the upstream bills a refused call, Anthropic's rule ("How refusals are billed", which its page says
 * applies on every platform serving Claude): a refusal after output began bills the input and the output
 * already produced; one before any output is billed only in the categories Anthropic names as billed
 * (`bio`, `frontier_llm`, `reasoning_extraction` as of September 2026), and in any other category, or with a
 * null one, its token counts appear in `usage` but are not charged. The rule is read only where the gateway
 * gets Anthropic's own refusal: an Anthropic-format endpoint (`anthropic` family), whose `stop_details` names
 * the category. A translated vendor's refusal (a content filter mapped to `refusal`, Bedrock's Converse
 * included, which reports no Anthropic category) has no source saying it is free, so it stays charged.
 * Pure functions.
 * @see https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback (How refusals are billed)
 */
import type { ResponseContentBlock } from '#src/api-types.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';

/** The categories whose refusals before any output Anthropic bills (its table's "Billed before any output" column). */
export const BILLED_BEFORE_OUTPUT: ReadonlySet<string> = new Set(['bio', 'frontier_llm', 'reasoning_extraction']);

/** What decides whether a refused call is billed. */
export interface RefusalBillingInput {
  /** The API family of the endpoint that refused. */
  family: ApiFamily;
  /** `stop_details.category` of the refusal; null when it named none. */
  category: string | null;
  /** The refused call produced output before refusing (a content block of its own; a stream's block started). */
  outputBegan: boolean;
}

/** Whether the upstream bills the refused call: false only for Anthropic's refusal before any output in an unbilled category. */
export function refusalBilled({ family, category, outputBegan }: RefusalBillingInput): boolean {
  if (outputBegan || family !== 'anthropic') return true;
  return category !== null && BILLED_BEFORE_OUTPUT.has(category);
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

/** Whether a refused JSON answer from `family` is billed, read from its content and `stop_details`. */
export function answerRefusalBilled(family: ApiFamily, message: { content: readonly Pick<ResponseContentBlock, 'type'>[]; stop_details?: { category?: unknown } | null }): boolean {
  return refusalBilled({ family, category: refusalCategoryOf(message.stop_details), outputBegan: contentHasOutput(message.content) });
}
