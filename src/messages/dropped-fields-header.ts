/**
 * `X-Switchboard-Dropped-Fields`: the request's fields the serving vendor was not sent, because it has no
 * counterpart for them (a translated vendor: `context_management`, `diagnostics`, text `citations`, ...), so
 * the client can see what the log says. Field paths only, never values; absent when nothing was dropped, and
 * so never on an Anthropic-format upstream's answer.
 * @see DroppedFields in openapi/components/headers/messages.yaml
 */

/** The header's name, in the house style of `X-Generation-Id` and `X-Switchboard-Signature`. */
export const DROPPED_FIELDS_HEADER = 'X-Switchboard-Dropped-Fields';

/**
 * The answer's headers with the dropped fields listed, comma-separated; `headers` itself when nothing was
 * dropped (the usual answer pays one check).
 */
export function withDroppedFieldsHeader(headers: Record<string, string> | undefined, dropped: readonly string[] | undefined): Record<string, string> | undefined {
  if (dropped === undefined || dropped.length === 0) return headers;
  return { ...headers, [DROPPED_FIELDS_HEADER]: dropped.join(', ') };
}
