/**
 * The credentials in a URL's user-info (`https://user:password@host/…`), as the secrets to cut from what the
 * URL's server, or an error about the URL, says back. Logs show the user-info as `***` (backend-url.ts
 * `shownUrl`); this is the other half, for the words of a backend or destination and of the HTTP client: undici's
 * fetch refuses such a URL with an error that quotes it whole ("Request cannot be constructed from a URL that
 * includes credentials: …"), and a client that turns it into a Basic header (node:http's `auth`) sends
 * `user:password` in base64, which a server's debug page may quote. Pure.
 */

// The user-info as written: everything between `//` and the authority's last `@` (WHATWG URL: the last `@`
// ends the user-info, so a raw `@` in a password stays in it).
const USER_INFO = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secret forms of a URL's user-info: with a password, the password and the `user:password` pair (the
 * user name alone is an identity, not a secret); with a user name alone, the name, which is then the
 * credential (a token given as the user, as `https://<token>@host` does). Each as written, as the URL parser
 * writes it (percent-encoding what the operator left raw), and percent-decoded, as a server or a Basic header
 * has it. Empty for a URL without user-info or one that does not parse. Callers drop forms too short to cut.
 */
export function userInfoSecrets(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return [];
  const written = USER_INFO.exec(url)?.[1] ?? '';
  const colon = written.indexOf(':');
  const forms: { user: string; password: string | undefined }[] = [
    { user: colon === -1 ? written : written.slice(0, colon), password: colon === -1 ? undefined : written.slice(colon + 1) },
    { user: parsed.username, password: parsed.password === '' ? undefined : parsed.password },
  ];
  const secrets = forms.flatMap(({ user, password }) => {
    if (password === undefined || password === '') return user === '' ? [] : [user, decoded(user), `${decoded(user)}:`];
    return [password, decoded(password), `${user}:${password}`, `${decoded(user)}:${decoded(password)}`];
  });
  return [...new Set(secrets.filter((secret) => secret !== '' && secret !== ':'))];
}
