/**
 * Reads the wire form of a provider key: always a string. For openai and fireworks the string may hold the
 * JSON text of a region-bound key, `{"api_key": "…", "region": "us"|"europe"}` (the form the hosted service
 * whose interface the gateway implements takes); any other string is the key itself. Every reason given is
 * safe to show: it never repeats the key, nor a JSON parser's message (which quotes the input).
 * @see ProviderKey in openapi/components/schemas/byok-fields.yaml
 */
import type { ProviderKeyMaterial } from '#src/byok/key-vault.ts';
import { REGIONAL_KEY_PROVIDERS, RuleViolation } from '#src/byok/rules.ts';
import { isResidencyRegion } from '#src/data-region.ts';
import { checkKeyShape } from '#src/byok/key-shape.ts';

/** How a region-bound key is written, as reasons name it. */
export const REGION_BOUND_KEY_FORM = '{"api_key": "…", "region": "us"|"europe"}';

/** Why a JSON object in place of the key string is refused (the request validator's complaint, made precise). */
export const KEY_MUST_BE_STRING = `key must be a string; for ${[...REGIONAL_KEY_PROVIDERS].join(' and ')} a region-bound key is the JSON text ${REGION_BOUND_KEY_FORM}`;

/** Why a key of only white space is refused. */
export const BLANK_KEY = 'key is blank (only white space): send the provider key itself';

/** The object a string holds when it is the JSON text of one; null for anything else (invalid JSON included). */
function jsonObjectOf(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

// What an HTTP header value can carry (undici and node:http refuse anything else): the key is sent as one.
const HEADER_SAFE = /^[\t\x20-\x7E\x80-\xFF]*$/;

/**
 * A key with a line break (a newline pasted with it) or another control character was stored, and every
 * request with it then failed before reaching the provider, reported as a connection failure.
 */
function checkHeaderSafe(apiKey: string, field: string, hint = ''): void {
  if (!HEADER_SAFE.test(apiKey)) {
    throw new RuleViolation(`${field} must be text an HTTP header can carry (it is sent to the provider as one): tabs, printable ASCII and Latin-1, no line breaks or other control characters${hint}`);
  }
}

function hasRegionBoundShape(value: Record<string, unknown>): boolean {
  const names = Object.keys(value).sort();
  return names.length === 2 && names[0] === 'api_key' && names[1] === 'region';
}

function regionBoundKey(provider: string, value: Record<string, unknown> | null): ProviderKeyMaterial {
  const form = `a region-bound ${provider} key is the JSON text ${REGION_BOUND_KEY_FORM}`;
  if (value === null) throw new RuleViolation(`key starts with "{" but is not a JSON object: ${form}`);
  const { api_key: apiKey, region } = value;
  if (typeof apiKey !== 'string' || apiKey.trim().length === 0) throw new RuleViolation(`key has no api_key (a non-empty string): ${form}`);
  if (!isResidencyRegion(region)) throw new RuleViolation(`key has no valid region ("us" or "europe"): ${form}`);
  if (!hasRegionBoundShape(value)) throw new RuleViolation(`key has properties other than api_key and region: ${form}`);
  checkHeaderSafe(apiKey, "key's api_key");
  return { apiKey, region };
}

/**
 * Turns a wire key into key material. For openai and fireworks, a string starting with `{` (after white space)
 * must be a region-bound key; anything else is a plain key. For other providers every string is a plain key
 * (some providers' keys are JSON documents) except the JSON text of exactly `{api_key, region}`, a form only
 * openai and fireworks have, which is refused rather than stored as a key that would never work. A plain key,
 * a region-bound key's `api_key` and a JSON document key (sent whole) must be text a header can carry, and not
 * blank. A key of the wrong kind for its provider (a Google service-account file, an AWS access key id) is refused first.
 */
export function parseProviderKey(provider: string, key: string): ProviderKeyMaterial {
  // White space alone passed every check (it is header-safe) and was stored: every request then failed upstream.
  if (key.trim().length === 0) throw new RuleViolation(BLANK_KEY);
  if (!key.trimStart().startsWith('{')) {
    checkKeyShape(provider, key, null);
    checkHeaderSafe(key, 'key');
    return { apiKey: key, region: null };
  }
  const value = jsonObjectOf(key);
  // Before the header check: a pretty-printed service-account file would otherwise be told to go on one line.
  checkKeyShape(provider, key, value);
  if (REGIONAL_KEY_PROVIDERS.has(provider)) return regionBoundKey(provider, value);
  if (value !== null && hasRegionBoundShape(value)) {
    throw new RuleViolation(
      `a region-bound key ${REGION_BOUND_KEY_FORM} is only accepted for ${[...REGIONAL_KEY_PROVIDERS].join(' and ')} (for ${provider}, send the key itself)`,
    );
  }
  // The document is the key, sent whole: a pretty-printed one failed every request as a 502 "connection".
  checkHeaderSafe(key, 'key', '; a JSON document key is sent whole, so write it on one line');
  return { apiKey: key, region: null };
}
