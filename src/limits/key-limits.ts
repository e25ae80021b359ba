/**
 * A gateway key's limits as the request path reads them: plain data cached with the key (see
 * keys/key-authenticator.ts), so a key without limits costs its requests nothing more than a null check.
 */
import type { ApiKeyRow } from '#src/store/schema.ts';

/** When a credit limit's count starts over; null is never (the key's whole life). */
export type LimitReset = NonNullable<ApiKeyRow['limitReset']>;

/** The limits of one key; every field null means "no such limit". */
export interface KeyLimits {
  /** USD per period. */
  creditLimit: number | null;
  limitReset: LimitReset | null;
  requestsPerMinute: number | null;
  /** Input plus output tokens (cache reads and writes included). */
  tokensPerMinute: number | null;
  maxConcurrentStreams: number | null;
}

/** The key's limits, or null when it has none (the period alone is no limit: nothing to count then). */
export function keyLimitsOf(row: Pick<ApiKeyRow, 'creditLimit' | 'limitReset' | 'requestsPerMinute' | 'tokensPerMinute' | 'maxConcurrentStreams'>): KeyLimits | null {
  if (row.creditLimit === null && row.requestsPerMinute === null && row.tokensPerMinute === null && row.maxConcurrentStreams === null) return null;
  return {
    creditLimit: row.creditLimit,
    limitReset: row.limitReset,
    requestsPerMinute: row.requestsPerMinute,
    tokensPerMinute: row.tokensPerMinute,
    maxConcurrentStreams: row.maxConcurrentStreams,
  };
}
