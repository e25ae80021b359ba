/**
 * Builds the body sent to an Anthropic-format upstream: the client's own JSON with only the model replaced
 * and the gateway's fields removed. Unknown fields survive, so new Anthropic parameters work on day one.
 */
import type { CountTokensRequest, MessageParam, MessageRequest } from '#src/api-types.ts';
import { GATEWAY_SIGNATURE_PREFIX } from '#src/providers/ai-sdk/reasoning-signature.ts';
import { GATEWAY_ONLY_FIELDS } from '#src/request/gateway-fields.ts';
import { GENERATION_ONLY_FIELDS } from '#src/request/generation-fields.ts';

export { GATEWAY_ONLY_FIELDS };

const GATEWAY_ONLY = new Set<string>(GATEWAY_ONLY_FIELDS);

/** The Messages body for the upstream, as JSON text. */
export function convertToAnthropicBody(request: MessageRequest, upstreamModel: string, stream: boolean, fast = false): string {
  const body: Record<string, unknown> = {};
  // A JSON request's `stream` is left out here rather than deleted afterwards: `delete` turns the object into a
  // dictionary, which JSON.stringify then walks on its slow path. Keys, not entries: no pair array per field.
  const fields = request as unknown as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!GATEWAY_ONLY.has(name) && (stream || name !== 'stream')) body[name] = fields[name];
  }
  body.model = upstreamModel;
  body.messages = withoutForeignThinking(request.messages);
  if (fast) body.speed = 'fast';
  if (stream) body.stream = true;
  return JSON.stringify(body);
}

function isForeignThinking(block: unknown): boolean {
  const candidate = block as { type?: unknown; signature?: unknown; data?: unknown };
  // Redacted reasoning (Bedrock's) carries its envelope in `data`, where Anthropic's own has its encrypted form.
  const material = candidate.type === 'thinking' ? candidate.signature : candidate.type === 'redacted_thinking' ? candidate.data : undefined;
  return typeof material === 'string' && material.startsWith(GATEWAY_SIGNATURE_PREFIX);
}

/**
 * Drops thinking and redacted thinking blocks another vendor produced (their signatures or data are the
 * gateway's `sbsig1_` envelopes), which Anthropic would reject, when a conversation moves to an Anthropic
 * upstream after a fallback. The
 * messages are returned as they are, without copying, when there is none: the usual case.
 */
export function withoutForeignThinking(messages: MessageParam[]): MessageParam[] {
  const foreign = messages.some((message) => message.role === 'assistant' && Array.isArray(message.content) && message.content.some(isForeignThinking));
  if (!foreign) return messages;
  return messages.map((message) =>
    message.role === 'assistant' && Array.isArray(message.content) ? { ...message, content: message.content.filter((block) => !isForeignThinking(block)) } : message,
  );
}

/**
 * The count_tokens body for the upstream, as JSON text: count_tokens refuses the fields that only shape a
 * generation; every other field (one Anthropic adds tomorrow included) is forwarded, as for a message.
 */
export function convertToAnthropicCountTokensBody(request: CountTokensRequest, upstreamModel: string): string {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request)) {
    if (!GATEWAY_ONLY.has(name) && !GENERATION_ONLY_FIELDS.has(name)) body[name] = value;
  }
  body.model = upstreamModel;
  body.messages = withoutForeignThinking(request.messages);
  return JSON.stringify(body);
}
