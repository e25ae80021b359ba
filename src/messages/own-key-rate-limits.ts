/**
 * The upstream's `anthropic-ratelimit-*` response headers, passed on only when the caller's own key (BYOK)
 * served the answer: they then describe the caller's own account, as Anthropic would have told it directly.
 * With the gateway's shared provider key they describe the gateway's organisation (its capacity, shared by
 * every tenant) and are never passed on. Pure; a shared key's answer costs one check.
 */
import type { UpstreamHeaders } from '#src/providers/provider-adapter.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';

const PREFIX = 'anthropic-ratelimit-';

/** The rate-limit headers the client sees for an answer `attempt` served, or undefined when there are none to pass on. */
export function ownKeyRateLimitHeaders(attempt: Pick<Attempt, 'credential'>, headers: UpstreamHeaders | undefined): Record<string, string> | undefined {
  if (!headers || !isByok(attempt)) return undefined;
  let picked: Record<string, string> | undefined;
  for (const name in headers) {
    const value = headers[name];
    // undici gives names in lower case; a repeated header is not one a limit is told in.
    if (!name.startsWith(PREFIX) || typeof value !== 'string') continue;
    (picked ??= {})[name] = value;
  }
  return picked;
}
