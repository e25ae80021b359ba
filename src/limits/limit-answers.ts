/**
 * What a refused request is told: a 402 for a spent credit limit, a 429 with `retry-after` for a rate limit or
 * for a credit limit whose rest is held by requests in progress, each naming the limit. Pure functions of the
 * refusal and the key's limits.
 */
import { GatewayError } from '#src/errors.ts';
import type { KeyLimits } from '#src/limits/key-limits.ts';
import { periodWords, type LimitPeriod } from '#src/limits/limit-period.ts';
import type { AdmissionRefusal, AdmittedWindow } from '#src/limits/limit-store.ts';
import { secondOf, WINDOW_SECONDS } from '#src/limits/minute-window.ts';

/** 402: the calling key's credit limit is used up for its period; the message says how much and until when. */
export class CreditLimitExceededError extends GatewayError {
  constructor(message: string) {
    super(402, message);
  }
}

/**
 * 429: one of the calling key's own rate limits is reached; `retry-after` says when to try again (whole
 * seconds), `headers` what else the answer carries (`retry-after-ms`, the limit's `anthropic-ratelimit-*`).
 */
export class KeyRateLimitedError extends GatewayError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, headers: Readonly<Record<string, string>> = {}) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, message, { headers: { ...headers, 'retry-after': String(seconds) } });
    this.retryAfterSeconds = seconds;
  }
}

/** A USD amount as a message shows it: at most six decimals, no trailing zeros. */
export function formatUsd(amount: number): string {
  return String(Number(amount.toFixed(6)));
}

/**
 * The headers of a 429 for a per-minute limit, as Anthropic names its own (clients read them): the exact wait
 * in `retry-after-ms` (the Anthropic SDKs prefer it to the whole seconds of `retry-after`), and the limit
 * reached with nothing remaining until `reset` (RFC 3339), under `anthropic-ratelimit-<which>-*`.
 */
function minuteLimitHeaders(which: 'requests' | 'tokens', limit: number | null, retryAfterMs: number, nowMs: number): Record<string, string> {
  const wait = Math.max(1, Math.ceil(retryAfterMs));
  return {
    'retry-after-ms': String(wait),
    [`anthropic-ratelimit-${which}-limit`]: String(limit ?? 0),
    [`anthropic-ratelimit-${which}-remaining`]: '0',
    [`anthropic-ratelimit-${which}-reset`]: new Date(nowMs + wait).toISOString(),
  };
}

// A stream slot or a credit limit's reserved rest frees within moments: the SDKs retry after a second.
const ONE_SECOND = { 'retry-after-ms': '1000' } as const;

/** The error a refusal answers with; `nowMs` dates the reset a per-minute limit's headers name. */
export function refusalError(refusal: Exclude<AdmissionRefusal, { limit: 'seed' }>, limits: KeyLimits, period: LimitPeriod | null, nowMs = Date.now()): GatewayError {
  switch (refusal.limit) {
    case 'credit': {
      const limit = limits.creditLimit ?? 0;
      const spent = `${formatUsd(refusal.spent)} of ${formatUsd(limit)} USD spent ${periodWords(limits.limitReset)}`;
      // Not spent yet, only held by requests in progress: they settle (usually far below their worst case)
      // within moments, so this is a "try again shortly", not an exhausted limit.
      if (refusal.spent < limit) {
        return new KeyRateLimitedError(`Credit limit nearly reached for this key: ${spent} and ${formatUsd(refusal.reserved)} reserved by requests in progress; retry in 1 s`, 1, ONE_SECOND);
      }
      const resets = period?.end ? `; it resets at ${period.end.toISOString()}` : '; raise the limit to spend more';
      return new CreditLimitExceededError(`Credit limit reached for this key: ${spent}${resets}`);
    }
    case 'streams':
      return new KeyRateLimitedError(`Rate limit reached for this key: ${refusal.open} concurrent streams are open (max_concurrent_streams ${limits.maxConcurrentStreams}); retry in 1 s`, 1, ONE_SECOND);
    case 'requests': {
      const seconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
      return new KeyRateLimitedError(`Rate limit reached for this key: ${limits.requestsPerMinute} requests per minute; retry in ${seconds} s`, seconds, minuteLimitHeaders('requests', limits.requestsPerMinute, refusal.retryAfterMs, nowMs));
    }
    case 'tokens': {
      const seconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
      return new KeyRateLimitedError(
        `Rate limit reached for this key: ${refusal.used} of ${limits.tokensPerMinute} tokens per minute (input plus output) used; retry in ${seconds} s`,
        seconds,
        minuteLimitHeaders('tokens', limits.tokensPerMinute, refusal.retryAfterMs, nowMs),
      );
    }
    default: {
      const unreachable: never = refusal;
      throw new Error(`unknown refusal ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The headers of an admitted request's answer for the key's per-minute limits, under Anthropic's names:
 * each limit, what its window has left after this request (its tokens reserved), and when the window is fully
 * replenished (60 seconds past the second this request was counted in, RFC 3339).
 */
export function admittedWindowHeaders(limits: KeyLimits, window: AdmittedWindow, nowMs: number): Record<string, string> | undefined {
  const reset = new Date((secondOf(nowMs) + WINDOW_SECONDS) * 1000).toISOString();
  let headers: Record<string, string> | undefined;
  if (limits.requestsPerMinute !== null && window.requests !== null) headers = familyHeaders('requests', limits.requestsPerMinute, window.requests, reset);
  if (limits.tokensPerMinute !== null && window.tokens !== null) headers = { ...headers, ...familyHeaders('tokens', limits.tokensPerMinute, window.tokens, reset) };
  return headers;
}

function familyHeaders(which: 'requests' | 'tokens', limit: number, used: number, reset: string): Record<string, string> {
  return {
    [`anthropic-ratelimit-${which}-limit`]: String(limit),
    [`anthropic-ratelimit-${which}-remaining`]: String(Math.max(0, Math.floor(limit - used))),
    [`anthropic-ratelimit-${which}-reset`]: reset,
  };
}
