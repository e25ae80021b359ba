/**
 * A mark a translator puts on a refusal's `stop_details` when the vendor's own filter refused the prompt
 * before its model ran (Amazon Bedrock's guardrail on the input), which the vendor does not bill as model
 * inference. The mark is a symbol key: it travels with the object inside the gateway (a JSON answer, a
 * stream's typed `message_delta`) to the cost accounting (src/messages/refusal-billing.ts), and JSON leaves it
 * out, so no client ever sees it.
 */

const BLOCKED_BEFORE_MODEL = Symbol('blockedBeforeModel');

/** `details` marked as a refusal of the prompt before the model ran. */
export function markedBlockedBeforeModel<T extends object>(details: T): T {
  return Object.assign(details, { [BLOCKED_BEFORE_MODEL]: true });
}

/** Whether a refusal's `stop_details` carry the mark (`markedBlockedBeforeModel`). */
export function blockedBeforeModel(details: unknown): boolean {
  return typeof details === 'object' && details !== null && (details as { [BLOCKED_BEFORE_MODEL]?: unknown })[BLOCKED_BEFORE_MODEL] === true;
}
