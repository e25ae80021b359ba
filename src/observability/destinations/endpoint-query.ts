/**
 * The secret part of a destination's endpoint. Collectors and webhook receivers often take their token in the
 * query (`?api_key=…`), so the values of an endpoint's query (and its fragment) are treated like its other
 * secrets: sealed with them, while the row and every response hold the endpoint with each value shown as
 * `***`. Deliveries join the two again. Pure string work on the URL as given, so the receiver gets exactly
 * the query the client wrote (no re-encoding by a URL parser). The user-info (`https://user:password@…`,
 * sent as Basic authentication, src/http/url-user-info.ts) is the other secret part: sealed as written, shown
 * as `***@`, put back for deliveries.
 */
import { replaceUserInfo, writtenUserInfo } from '#src/http/url-user-info.ts';

/** How a secret value of an endpoint is shown. */
export const REDACTED_VALUE = '***';

/** An endpoint split into the form stored and shown, and its secret parts as given. */
export interface SplitEndpoint {
  shown: string;
  /** The query and fragment; null when they hold nothing secret (no query values, no fragment). */
  tail: string | null;
  /** The user-info as written (`user:p%40ss`); null without one. */
  userInfo: string | null;
}

function redactPair(pair: string): string {
  if (pair === '') return pair;
  const equals = pair.indexOf('=');
  // A bare component (`?3f9a…`) is as likely to be a token as a flag: shown redacted too.
  if (equals === -1) return REDACTED_VALUE;
  return equals === pair.length - 1 ? pair : `${pair.slice(0, equals + 1)}${REDACTED_VALUE}`;
}

function redactTail(tail: string): string {
  const hash = tail.indexOf('#');
  const query = hash === -1 ? tail : tail.slice(0, hash);
  const fragment = hash === -1 ? '' : tail.slice(hash);
  const shownQuery = query === '' ? '' : `?${query.slice(1).split('&').map(redactPair).join('&')}`;
  return shownQuery + (fragment.length > 1 ? `#${REDACTED_VALUE}` : fragment);
}

/** Splits `endpoint` (a URL the spec accepted) into its shown form and its secret parts. */
export function splitEndpoint(endpoint: string): SplitEndpoint {
  const userInfo = writtenUserInfo(endpoint);
  const base = userInfo === null ? endpoint : replaceUserInfo(endpoint, REDACTED_VALUE);
  const at = base.search(/[?#]/);
  if (at === -1) return { shown: base, tail: null, userInfo };
  const shown = base.slice(0, at) + redactTail(base.slice(at));
  return { shown, tail: shown === base ? null : base.slice(at), userInfo };
}

/** The endpoint as responses show it (user-info, query values and fragment as `***`). */
export function redactEndpoint(endpoint: string): string {
  return splitEndpoint(endpoint).shown;
}

/** The URL deliveries go to: the stored (shown) endpoint with its sealed user-info and tail put back. */
export function joinEndpoint(shown: string, tail: string | undefined, userInfo?: string): string {
  const at = shown.search(/[?#]/);
  const joined = tail === undefined ? shown : (at === -1 ? shown : shown.slice(0, at)) + tail;
  return userInfo === undefined ? joined : replaceUserInfo(joined, userInfo);
}

/**
 * Whether an endpoint a client gives carries `***` where a query value, a user name or a password goes: the
 * form responses show, sent back as if it were the value. Stored, every delivery would carry the literal `***`.
 */
export function carriesRedactedValue(endpoint: string): boolean {
  if (writtenUserInfo(endpoint)?.split(':').includes(REDACTED_VALUE)) return true;
  const start = endpoint.indexOf('?');
  if (start === -1) return false;
  const hash = endpoint.indexOf('#', start);
  return endpoint
    .slice(start + 1, hash === -1 ? undefined : hash)
    .split('&')
    .some((pair) => pair === REDACTED_VALUE || pair.endsWith(`=${REDACTED_VALUE}`));
}
