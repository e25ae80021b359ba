/**
 * The secret part of a destination's endpoint. Collectors and webhook receivers often take their token in the
 * query (`?api_key=…`), so the values of an endpoint's query (and its fragment) are treated like its other
 * secrets: sealed with them, while the row and every response hold the endpoint with each value shown as
 * `***`. Deliveries join the two again. Pure string work on the URL as given, so the receiver gets exactly
 * the query the client wrote (no re-encoding by a URL parser). The credentials of a URL's user-info are
 * src/http/url-user-info.ts's.
 */

/** How a secret value of an endpoint is shown. */
export const REDACTED_VALUE = '***';

/** An endpoint split into the form stored and shown, and the secret tail (query and fragment as given). */
export interface SplitEndpoint {
  shown: string;
  /** Null when nothing in the endpoint is secret (no query values, no fragment). */
  tail: string | null;
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

/** Splits `endpoint` (a URL the spec accepted) into its shown form and its secret tail. */
export function splitEndpoint(endpoint: string): SplitEndpoint {
  const at = endpoint.search(/[?#]/);
  if (at === -1) return { shown: endpoint, tail: null };
  const shown = endpoint.slice(0, at) + redactTail(endpoint.slice(at));
  return { shown, tail: shown === endpoint ? null : endpoint.slice(at) };
}

/** The endpoint as responses show it (query values and fragment as `***`). */
export function redactEndpoint(endpoint: string): string {
  return splitEndpoint(endpoint).shown;
}

/** The URL deliveries go to: the stored (shown) endpoint with its sealed tail put back. */
export function joinEndpoint(shown: string, tail: string | undefined): string {
  if (tail === undefined) return shown;
  const at = shown.search(/[?#]/);
  return (at === -1 ? shown : shown.slice(0, at)) + tail;
}

/**
 * Whether an endpoint a client gives carries `***` where a query value goes: the form responses show, sent
 * back as if it were the value. Stored, every delivery would carry the literal `***`.
 */
export function carriesRedactedValue(endpoint: string): boolean {
  const start = endpoint.indexOf('?');
  if (start === -1) return false;
  const hash = endpoint.indexOf('#', start);
  return endpoint
    .slice(start + 1, hash === -1 ? undefined : hash)
    .split('&')
    .some((pair) => pair === REDACTED_VALUE || pair.endsWith(`=${REDACTED_VALUE}`));
}
