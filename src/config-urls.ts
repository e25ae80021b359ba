/**
 * The connection URLs of the environment (`DATABASE_URL`, `REDIS_URL`), checked at start so a mistake is
 * reported naming the variable. A connection URL may hold a password, so no message quotes it: a message shows
 * the URL with its password masked at most ({@link withoutPassword}), and the drivers' own parse errors (which
 * carry the input) are never passed on.
 */

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const POSTGRES_FORM = 'postgres://<user>:<password>@<host>:<port>/<database>';
const REDIS_FORM = 'redis://[<user>:<password>@]<host>:<port>[/<db>] (or rediss:// for TLS)';
// Why no message quotes the value.
const NOT_SHOWN = 'the value is not shown: it may hold a password';

function parses(text: string, base?: string): boolean {
  try {
    new URL(text, base);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks `DATABASE_URL` the way node-postgres reads it: a socket path (`/run/postgresql db`), or a URL with
 * the `postgres:`, `postgresql:` or `socket:` scheme (a bare `user:password@host/db` is read relative to
 * `postgres://`). Throws a message naming the variable.
 */
export function checkDatabaseUrl(raw: string | undefined): void {
  if (!raw || raw.startsWith('/')) return;
  const scheme = SCHEME.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql' && scheme !== 'socket') {
    throw new Error(`DATABASE_URL must be a PostgreSQL connection URL, ${POSTGRES_FORM}, but its scheme is ${scheme}:// (${NOT_SHOWN})`);
  }
  // node-postgres's own rule: percent signs not followed by two hex digits, and spaces, are encoded first.
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(raw) ? encodeURI(raw).replace(/%25(\d\d)/g, '%$1') : raw;
  if (parses(text, 'postgres://base') || parses(text.replace('@/', '@___DUMMY___/'), 'postgres://base')) return;
  throw new Error(
    `DATABASE_URL is not a valid URL: expected ${POSTGRES_FORM}, with any of / ? # @ : in the user name or password percent-encoded (${NOT_SHOWN})`,
  );
}

/** Checks `REDIS_URL` the way ioredis reads it (a bare `host:port` is read as `redis://host:port`). Throws a message naming the variable. */
export function checkRedisUrl(raw: string | undefined): void {
  if (!raw || (raw.startsWith('/') && !raw.startsWith('//'))) return;
  const scheme = SCHEME.exec(raw)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'redis' && scheme !== 'rediss') {
    throw new Error(`REDIS_URL must be a Redis URL, ${REDIS_FORM}, but its scheme is ${scheme}:// (${NOT_SHOWN})`);
  }
  const text = scheme !== undefined ? raw : raw.startsWith('//') ? `redis:${raw}` : `redis://${raw}`;
  if (parses(text)) return;
  throw new Error(`REDIS_URL is not a valid URL: expected ${REDIS_FORM}, with any of / ? # @ : in the user name or password percent-encoded (${NOT_SHOWN})`);
}

/** The URL with its password masked, to name where a connection went; null when it does not parse as a URL. */
export function withoutPassword(raw: string): string | null {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return null;
  }
}

/**
 * A driver's error message with the URL's password removed wherever it appears (drivers do not quote it; this
 * keeps it so should one start to).
 */
export function scrubPassword(message: string, raw: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(raw).password);
  } catch {
    return message;
  }
  return password.length >= 4 ? message.replaceAll(password, '***') : message;
}
