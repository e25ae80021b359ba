/**
 * The credentials in a URL's user-info (`https://user:password@host/…`), as every HTTP client reads them:
 * HTTP Basic authentication. The gateway's backends (an MCP server's `url`, a search backend's `base_url`, a
 * broadcast destination's endpoint, from the configuration file or the API) are called without the user-info and with
 * `Authorization: Basic base64(user:password)` instead, the user name and password percent-decoded as curl and
 * node:http do: Node's fetch (the MCP SDK's transport) refuses a URL holding credentials, and undici (search
 * backends, webhook and Langfuse deliveries) sends none of it. The password, the pair and the derived token are
 * secrets, cut from what the backend or an error about the URL says back (`userInfoSecrets`); logs show the
 * user-info as `***` (src/server-tools/backend-url.ts `shownUrl`). Pure string work on the URL as written, so
 * the rest of it (the query a receiver checks a token in) reaches the server exactly as given.
 */

// What comes before the authority, as the URL parser reads it: leading spaces and controls (trimmed), the
// scheme, and any run of slashes and backslashes (`http:///u:p@h` and `http://\u:p@h` are user u at host h).
const PREFIX = /^[\x00-\x20]*[a-z][a-z0-9+.-]*:[/\\]*/i;

// The user-info as written: everything after the prefix up to the authority's last `@` (WHATWG URL: the last
// `@` ends the user-info, so a raw `@` in a password stays in it). The authority ends where the URL parser
// ends it, at `/`, `?`, `#` or, in an http(s) URL, `\`: an `@` after a backslash is the path's, and cutting
// there would send the credentials to a host no parser or guard saw (`http://u:p@a\x@b/` is host a).
const USER_INFO = new RegExp(`(${PREFIX.source})([^/?#\\\\]*)@`, 'i');

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parsedUserInfo(url: string | undefined): { user: string; password: string } | null {
  if (url === undefined || !URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.username === '' && parsed.password === '' ? null : { user: parsed.username, password: parsed.password };
}

/** Whether a URL carries a user name or a password. */
export function hasUserInfo(url: string | undefined): boolean {
  return parsedUserInfo(url) !== null;
}

/**
 * The Basic token (`base64(user:password)`, both percent-decoded) of a URL's user-info, or null without one.
 * A user name alone gives `user:`, the token a user name stands for, as curl and node:http send it.
 */
export function basicToken(url: string | undefined): string | null {
  const info = parsedUserInfo(url);
  if (info === null) return null;
  return Buffer.from(`${decoded(info.user)}:${decoded(info.password)}`, 'utf8').toString('base64');
}

/**
 * The URL without its user-info, otherwise exactly as written. A URL whose user-info the text does not show
 * where the parser finds it (a tab or newline in the scheme, which the parser drops) is written again by the
 * parser instead: never does user-info survive.
 */
export function withoutUserInfo(url: string): string {
  if (!hasUserInfo(url)) return url;
  if (USER_INFO.test(url)) return url.replace(USER_INFO, '$1');
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * The URL with any user-info shown as `***` (`ftp://***@host/…`), for a message quoting a URL that was refused:
 * by the text as written, so a URL that does not parse (a bad IPv6 host, a scheme not allowed) is covered too.
 */
export function userInfoShown(url: string): string {
  return url.replace(USER_INFO, '$1***@');
}

/** The user-info exactly as written (`user:p%40ss`), or null for a URL without one. */
export function writtenUserInfo(url: string): string | null {
  const info = parsedUserInfo(url);
  if (info === null) return null;
  return USER_INFO.exec(url)?.[2] ?? (info.password === '' ? info.user : `${info.user}:${info.password}`);
}

/** The URL with `userInfo` in place of the user-info it has or lacks, otherwise exactly as written. */
export function replaceUserInfo(url: string, userInfo: string): string {
  const bare = withoutUserInfo(url);
  const start = PREFIX.exec(bare)?.[0].length ?? 0;
  return `${bare.slice(0, start)}${userInfo}@${bare.slice(start)}`;
}

/**
 * The URL to call and the headers to call it with: without user-info, the URL and headers as given; with it,
 * the URL without it and the headers plus `authorization: Basic …`. A configured `authorization` header
 * beside user-info is refused when the configuration is read (`userInfoConflict`), so none is overwritten.
 */
export function userInfoAsBasic(url: string, headers: Readonly<Record<string, string>>): { url: string; headers: Record<string, string> } {
  const token = basicToken(url);
  if (token === null) return { url, headers: { ...headers } };
  return { url: withoutUserInfo(url), headers: { ...headers, authorization: `Basic ${token}` } };
}

/**
 * The configured header that conflicts with a URL's user-info, or null: an `authorization` header in any
 * case, since the user-info is sent as one. Two credentials for one backend is a mistake to name at start.
 */
export function userInfoConflict(url: string | undefined, headerNames: Iterable<string>): string | null {
  if (!hasUserInfo(url)) return null;
  for (const name of headerNames) if (name.toLowerCase() === 'authorization') return name;
  return null;
}

/**
 * The secret forms of a URL's user-info: with a password, the password and the `user:password` pair (the
 * user name alone is an identity, not a secret); with a user name alone, the name, which is then the
 * credential (a token given as the user, as `https://<token>@host` does). Each as written, as the URL parser
 * writes it (percent-encoding what the operator left raw), and percent-decoded, as a server has it; and the
 * Basic token the gateway sends, which a server's debug page may quote. Empty for a URL without user-info or
 * one that does not parse. Callers drop forms too short to cut.
 */
export function userInfoSecrets(url: string | undefined): string[] {
  const parsed = parsedUserInfo(url);
  if (url === undefined || parsed === null) return [];
  const written = USER_INFO.exec(url)?.[2] ?? '';
  const colon = written.indexOf(':');
  const forms: { user: string; password: string | undefined }[] = [
    { user: colon === -1 ? written : written.slice(0, colon), password: colon === -1 ? undefined : written.slice(colon + 1) },
    { user: parsed.user, password: parsed.password === '' ? undefined : parsed.password },
  ];
  const secrets = forms.flatMap(({ user, password }) => {
    if (password === undefined || password === '') return user === '' ? [] : [user, decoded(user), `${decoded(user)}:`];
    return [password, decoded(password), `${user}:${password}`, `${decoded(user)}:${decoded(password)}`];
  });
  const token = basicToken(url);
  if (token !== null) secrets.push(token, token.replace(/=+$/, ''));
  return [...new Set(secrets.filter((secret) => secret !== '' && secret !== ':'))];
}
