/**
 * Whether the database can be reached, as the in-memory caches of keys and credentials see it. When a query
 * fails because the database is unreachable (refused, reset or terminated connections, a connect timeout, a
 * server shutting down), the caches serve what they last knew instead of failing the request, and stop
 * asking the database for a moment so that an outage does not cost every request a failed query. The first
 * query that succeeds again makes them revalidate their entries as they are used.
 */

// SQLSTATEs of a database that went away: class 08 (connection exceptions), 57P01-57P03 (shut down by an
// administrator, a crash, or not accepting connections yet), 53300 (too many connections).
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
// node-postgres reports a dropped or timed-out connection by message only.
const UNAVAILABLE_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|the database system is (shutting down|starting up)/i;

/** Whether an error (or any of its causes; drizzle wraps driver errors) says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth += 1) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The shared view of the database's reachability. */
export class DatabaseAvailability {
  #downUntil = 0;
  readonly #retryMs: number;
  readonly #now: () => number;

  constructor(options: { retryMs?: number; now?: () => number } = {}) {
    this.#retryMs = options.retryMs ?? 1_000;
    this.#now = options.now ?? Date.now;
  }

  /** True for a short while after the database was found unreachable: serve from memory without asking. */
  isDown(): boolean {
    return this.#now() < this.#downUntil;
  }

  /** Notes a failed query; returns whether the failure was the database being unreachable. */
  failed(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.#downUntil = this.#now() + this.#retryMs;
    return true;
  }

  succeeded(): void {
    this.#downUntil = 0;
  }
}
