/**
 * Credential-looking values in configuration error messages, so that no message quotes one even where the field
 * is not a secret one (a key typed literally as `auth: sk-ant-…`, or pasted into `base_url`). Two signs, either
 * enough: a vendor key's well-known prefix, or a long token mixing letters and digits with the even spread of
 * characters a random key has and an identifier (a model id, a host, a version) has not.
 */

// Prefixes vendors give their keys (and the gateway its own), matched at the start of a token.
const KEY_PREFIXES = /^(sk-|sk_|sb-|pk-lf-|AKIA|ASIA|AIza|gsk_|xai-|ghp_|gho_|github_pat_|hf_|fw_|r8_|pplx-|nvapi-|csk-|tvly-|glpat-|xox[abp]-|key-)/;
// A token in the characters keys are written in (base64, base64url, hex, vendors' separators), with the quotes
// a message may have put around it (a quoted value cut short ends in `...`, which the token takes in).
const QUOTED_TOKEN = /"([A-Za-z0-9+/=_\-.~]{16,})"|([A-Za-z0-9+/=_\-.~]{16,})/g;
const LONG_TOKEN_LENGTH = 24;
const LONG_TOKEN_BITS_PER_CHARACTER = 4;
// A hex key (a 32-byte secret): its sixteen characters keep its spread below the bar above.
const HEX_KEY = /^[0-9a-fA-F]{32,}$/;
const HIDDEN = 'a value that looks like a credential (not shown)';

function bitsPerCharacter(text: string): number {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= (count / text.length) * Math.log2(count / text.length);
  return bits;
}

/** Whether one token looks like a credential: a known key prefix, or long, random-looking letters and digits. */
export function isCredentialToken(token: string): boolean {
  if (KEY_PREFIXES.test(token)) return true;
  if (token.length < LONG_TOKEN_LENGTH || !/\d/.test(token) || !/[A-Za-z]/.test(token)) return false;
  if (HEX_KEY.test(token)) return true;
  // Identifiers are words and version numbers joined by separators: their parts are short and they repeat
  // characters; a random key has a long part, and its characters spread evenly.
  // A long word (a host's `generativelanguage`) is one case of letters; a key's long part mixes cases or digits.
  const longParts = token.split(/[/_\-.~]/).filter((part) => part.length >= 16 && [/[a-z]/, /[A-Z]/, /\d/].filter((kind) => kind.test(part)).length >= 2);
  return longParts.length > 0 && bitsPerCharacter(token) >= LONG_TOKEN_BITS_PER_CHARACTER;
}

// The gateway's own API key hashes (SHA-256, lowercase hex), which the file uses as keys of mappings.
const KEY_HASH = /^[0-9a-f]{64}$/;

/**
 * The text with every credential-looking token (and the quotes around it) replaced by a phrase saying so.
 * `keyHashes` keeps key hashes readable, for a path (dot-separated) through a mapping keyed by them.
 */
export function redactCredentials(text: string, options: { keyHashes?: boolean } = {}): string {
  if (options.keyHashes === true) return text.split('.').map((segment) => (KEY_HASH.test(segment) ? segment : redactCredentials(segment))).join('.');
  return text.replaceAll(QUOTED_TOKEN, (match, quoted: string | undefined, bare: string | undefined) => (isCredentialToken(quoted ?? bare ?? '') ? HIDDEN : match));
}
