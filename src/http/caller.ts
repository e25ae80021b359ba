import type { KeyLimits } from '#src/limits/key-limits.ts';

/** Who is calling: resolved from the bearer key by the authentication middleware, once per request. */
export interface Caller {
  accountId: string;
  workspaceId: string;
  /** SHA-256 of the raw key, 64 lowercase hex: the value `allowed_api_key_hashes` holds. */
  keyHash: string;
  kind: 'management' | 'inference';
  /** The key's limits, cached with it; null when it has none. */
  limits: KeyLimits | null;
}

/**
 * Resolves a raw bearer key to its caller, or undefined for an unknown or revoked key. Must be cheap: it runs
 * per request. A key it can answer from memory is answered at once, without a promise, so a warm request's
 * authentication takes no asynchronous step (src/http/authenticate.ts).
 */
export type KeyAuthenticator = (rawKey: string) => Caller | undefined | Promise<Caller | undefined>;

/** The authenticated caller of this request; set by the bearer security handler before any route runs. */
export function callerOf(res: { locals: Record<string, unknown> }): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf: the route has no authenticated caller (is it declared with security?)');
  return caller;
}
