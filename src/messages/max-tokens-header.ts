/**
 * `X-Switchboard-Max-Tokens`: the `max_tokens` the serving endpoint was sent when the gateway lowered the
 * request's to the endpoint's output limit (src/request/output-limit.ts), so a client whose answer stops with
 * `max_tokens` sooner than it asked can tell why; the log says it too. Absent when the value went as asked.
 * @see MaxTokensSent in openapi/components/headers/messages.yaml
 */
import { sentMaxTokens } from '#src/request/output-limit.ts';
import type { Attempt } from '#src/routing/attempt.ts';

/** The header's name, in the house style of `X-Generation-Id` and `X-Switchboard-Signature`. */
export const MAX_TOKENS_HEADER = 'X-Switchboard-Max-Tokens';

/**
 * The `max_tokens` `attempt` is sent when the gateway lowers the request's `asked` to its endpoint's output
 * limit; undefined when it goes as asked. The same rule the adapters apply (`withinOutputLimit`).
 */
export function loweredMaxTokens(asked: number, attempt: Pick<Attempt, 'maxOutputTokens'>): number | undefined {
  const sent = sentMaxTokens(asked, attempt.maxOutputTokens);
  return sent === asked ? undefined : sent;
}

/**
 * The answer's headers with the `max_tokens` `attempt` was sent when it is below the request's `asked`;
 * `headers` itself otherwise (the usual answer pays one comparison). A tool loop's answer passes its first
 * step's serving attempt: the headers go out before any later step runs.
 */
export function withMaxTokensHeader(headers: Record<string, string> | undefined, asked: number, attempt: Pick<Attempt, 'maxOutputTokens'>): Record<string, string> | undefined {
  const sent = loweredMaxTokens(asked, attempt);
  if (sent === undefined) return headers;
  return { ...headers, [MAX_TOKENS_HEADER]: String(sent) };
}
