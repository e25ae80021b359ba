/**
 * Gateway API keys: `sb-` followed by 43 base64url characters (32 random bytes). Only the SHA-256 of the raw
 * key is ever stored; it is also the key's public identifier (`allowed_api_key_hashes`, `DELETE /keys/{hash}`).
 */
import { hash, randomBytes } from 'node:crypto';

/** The prefix of every generated key, so leaked keys are recognisable (and redacted by the logger). */
export const API_KEY_PREFIX = 'sb-';

/** A key's kind: inference keys call `/messages`, management keys manage `/byok` and `/keys`. */
export type ApiKeyKind = 'management' | 'inference';

/** A new random raw key. */
export function generateRawApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 of the raw key as 64 lowercase hex characters. */
export function hashApiKey(rawKey: string): string {
  return hash('sha256', rawKey, 'hex');
}

/** The shortest key accepted from outside (`SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY`): guessable keys are refused. */
export const MIN_SUPPLIED_KEY_LENGTH = 32;

/** Checks a key supplied by an operator rather than generated; returns why it is unacceptable, or undefined. */
export function suppliedKeyProblem(rawKey: string): string | undefined {
  if (rawKey.length < MIN_SUPPLIED_KEY_LENGTH) return `must be at least ${MIN_SUPPLIED_KEY_LENGTH} characters long (generated keys look like sb-<43 characters>)`;
  if (/\s/.test(rawKey)) return 'must not contain whitespace';
  return undefined;
}
