/**
 * Claude Code opens its system prompt with a text block `x-anthropic-billing-header: cc_version=…;
 * cc_entrypoint=…;`: Anthropic's billing attribution, which Anthropic-format upstreams receive untouched. To
 * any other vendor it is prompt text that means nothing, and its `cc_version` changes with the CLI version and
 * the conversation, so as the first words of the prompt it would defeat the vendor's prefix caching (OpenAI
 * caches by prefix). Translated vendors get the request without it; nothing else is touched.
 */
import type { MessageRequest } from '#src/api-types.ts';

/** The exact prefix Claude Code's block starts with. */
export const BILLING_HEADER_PREFIX = 'x-anthropic-billing-header:';

/**
 * Whether a system block is the billing header: a text block of one line starting with the exact prefix. A
 * block with more after a line break holds prompt text too, and is kept.
 */
export function isBillingHeaderBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' && text.startsWith(BILLING_HEADER_PREFIX) && !/[\r\n]/.test(text);
}

/**
 * The request without a leading billing-header block of its top-level `system`; the same object when there is
 * none (a string system prompt, or a first block that is anything else). Only the first block is looked at.
 */
export function withoutBillingHeader<T extends Pick<MessageRequest, 'system'>>(request: T): T {
  const { system } = request;
  if (!Array.isArray(system) || !isBillingHeaderBlock(system[0])) return request;
  return { ...request, system: system.slice(1) };
}
