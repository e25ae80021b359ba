/**
 * The upstream's `anthropic-ratelimit-*` response headers, passed on only when the caller's own key (BYOK)
 * made the call: they then describe the caller's own account, as Anthropic would have told it directly.
 * With the gateway's shared provider key they describe the gateway's organisation (its capacity, shared by
 * every tenant) and are never passed on. Pure; a shared key's answer costs one check.
 */
import type { UpstreamError } from '#src/errors.ts';
import type { UpstreamHeaders } from '#src/providers/provider-adapter.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';

const PREFIX = 'anthropic-ratelimit-';
// What a limit is told in: a count or fraction, an RFC 3339 time, or a lowercase word (`allowed_warning`,
// `five_hour`). Anything else is not passed on: a vendor or proxy quoting the key it was sent in one of these
// headers would otherwise hand the key to every holder of the account's inference keys.
const LIMIT_VALUE = /^(?:\d{1,20}(?:\.\d{1,20})?|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})|[a-z_]{1,32})$/;

/** The rate-limit headers the client sees for an answer `attempt` served, or undefined when there are none to pass on. */
export function ownKeyRateLimitHeaders(attempt: Pick<Attempt, 'credential'>, headers: UpstreamHeaders | undefined): Record<string, string> | undefined {
  if (!headers || !isByok(attempt)) return undefined;
  let picked: Record<string, string> | undefined;
  for (const name in headers) {
    const value = headers[name];
    // undici gives names in lower case; a repeated header is not one a limit is told in.
    if (!name.startsWith(PREFIX) || typeof value !== 'string' || !LIMIT_VALUE.test(value)) continue;
    (picked ??= {})[name] = value;
  }
  return picked;
}

/** One attempt the upstream refused with a rate limit (a 429), and how. */
export interface RateLimitedAttempt {
  attempt: Pick<Attempt, 'credential'>;
  error: Pick<UpstreamError, 'upstreamHeaders' | 'headers'>;
}

/**
 * The rate-limit headers a 429 over every attempt passes on: those of the caller's own key's rate-limited
 * attempt that asked for the shortest wait (the one the answer's `retry-after` most likely names; the first
 * of them when none said), or undefined when no such attempt sent any.
 */
export function ownKeyRateLimitHeadersOfFailures(failed: readonly RateLimitedAttempt[]): Record<string, string> | undefined {
  let chosen: { headers: Record<string, string>; wait: number } | undefined;
  for (const { attempt, error } of failed) {
    const headers = ownKeyRateLimitHeaders(attempt, error.upstreamHeaders);
    if (!headers) continue;
    const asked = Number(error.headers?.['retry-after'] ?? Number.NaN);
    const wait = Number.isFinite(asked) ? asked : Number.POSITIVE_INFINITY;
    if (!chosen || wait < chosen.wait) chosen = { headers, wait };
  }
  return chosen?.headers;
}

const FAMILIES = ['requests', 'tokens'] as const;

/**
 * A success answer's rate-limit headers: the upstream's (a caller's own key's, from `ownKeyRateLimitHeaders`)
 * and the gateway key's per-minute windows (`keyWindow`). Where both describe a family (`requests`, `tokens`),
 * the one with less remaining is sent, its `-limit`, `-remaining` and `-reset` together (Anthropic's own rule:
 * the most restrictive limit in effect), the gateway key's on a tie; the upstream's other headers pass as they are.
 */
export function answerRateLimitHeaders(upstream: Record<string, string> | undefined, keyWindow: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  if (!keyWindow) return upstream;
  if (!upstream) return { ...keyWindow };
  const merged = { ...upstream };
  for (const family of FAMILIES) {
    const names = [`${PREFIX}${family}-limit`, `${PREFIX}${family}-remaining`, `${PREFIX}${family}-reset`];
    const ours = keyWindow[names[1] as string];
    if (ours === undefined) continue;
    const theirs = Number(upstream[names[1] as string]);
    if (Number.isFinite(theirs) && theirs < Number(ours)) continue;
    for (const name of names) {
      const value = keyWindow[name];
      if (value === undefined) delete merged[name];
      else merged[name] = value;
    }
  }
  return merged;
}
