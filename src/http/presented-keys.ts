/**
 * Which keys a request presents, under the security schemes its operation accepts. A pure rule with table
 * tests: the authentication handler looks the keys up in the order given here and uses the first live one.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { API_KEY_PREFIX } from '#src/keys/api-key.ts';

/**
 * One way an operation accepts a key, as its spec's security scheme says: `Authorization: Bearer <key>`, or
 * the raw key in a named header (`x-api-key`).
 */
export type AcceptedScheme = { kind: 'bearer' } | { kind: 'header'; name: string };

/**
 * The keys to try, best first, or why the request presents none: no key header, an Authorization header
 * that is not `Bearer <key>`, or a key header holding a list (`repeated`, naming the header).
 */
export type PresentedKeys = { keys: string[] } | { problem: 'missing' | 'malformed-authorization' } | { problem: 'repeated'; header: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;
// A key header sent twice reaches the gateway as one value joined with `, ` (Node joins a repeated
// `x-api-key`; fetch's Headers joins any repeated name), which no key lookup would ever match: it is told
// apart to be named. No key holds a space (generated keys are base64url; a supplied bootstrap key may not
// hold white space, src/keys/api-key.ts), so a key with a comma of its own is still read as one key.
const LIST_SEPARATOR = ', ';

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value.join(', ') : value;
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * The keys a request presents. Order: keys in the gateway's own format (`sb-…`) before others, then the
 * order of the operation's schemes (Authorization before x-api-key). So a provider key a client also sends
 * (`ANTHROPIC_API_KEY` next to `ANTHROPIC_AUTH_TOKEN`) is usually never even hashed, and the gateway key is
 * found with one lookup. A malformed Authorization header, or a key header holding a list, is a problem only
 * when nothing else presents a key.
 */
export function presentedKeys(headers: IncomingHttpHeaders, schemes: readonly AcceptedScheme[]): PresentedKeys {
  const found: string[] = [];
  let malformedAuthorization = false;
  let repeated: string | undefined;
  for (const scheme of schemes) {
    switch (scheme.kind) {
      case 'bearer': {
        const authorization = headerValue(headers, 'authorization');
        if (authorization === undefined) break;
        if (authorization.includes(LIST_SEPARATOR)) {
          repeated ??= 'Authorization';
          break;
        }
        const token = BEARER.exec(authorization)?.[1];
        if (token) found.push(token);
        else malformedAuthorization = true;
        break;
      }
      case 'header': {
        const value = headerValue(headers, scheme.name);
        if (value !== undefined && value.includes(LIST_SEPARATOR)) repeated ??= scheme.name;
        else if (value !== undefined) found.push(value);
        break;
      }
      default: {
        const unreachable: never = scheme;
        throw new Error(`unknown security scheme ${JSON.stringify(unreachable)}`);
      }
    }
  }
  // Gateway keys first, each key once. `found` holds one key per scheme (two at most), so `includes` is the
  // cheapest way to drop a repeat; a single key, the usual request, is returned as found.
  const keys = found.length <= 1 ? found : [];
  if (found.length > 1) {
    for (const key of found) if (looksLikeGatewayKey(key) && !keys.includes(key)) keys.push(key);
    for (const key of found) if (!looksLikeGatewayKey(key) && !keys.includes(key)) keys.push(key);
  }
  if (keys.length > 0) return { keys };
  if (repeated !== undefined) return { problem: 'repeated', header: repeated };
  return { problem: malformedAuthorization ? 'malformed-authorization' : 'missing' };
}

function looksLikeGatewayKey(key: string): boolean {
  return key.startsWith(API_KEY_PREFIX);
}
