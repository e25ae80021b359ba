/**
 * Posting a JSON body to a destination (webhook, Langfuse) through undici, on the destinations' own guarded
 * connection pool (never to a refused address, and never competing with upstream calls), with a time limit per attempt and retries with exponential
 * backoff and jitter on what may pass (a 5xx, a 408, a 429, a timeout or a network error), or after the wait
 * the destination asked for in `Retry-After` (capped).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { retryAfterSeconds } from '#src/providers/map-upstream-failure.ts';
import type { DeliverySignals } from '#src/observability/broadcast/sender.ts';

/** A destination's answer to one attempt: its status and, when it sent one, its `Retry-After` header. */
export interface DestinationAnswer {
  status: number;
  retryAfter?: string | undefined;
}

/**
 * The longest `Retry-After` a delivery waits: a destination asking for more is retried after this. The wait
 * holds only its own destination's queue (each has its own worker) and never a request.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * One attempt: the status, or a thrown network or timeout error. `dispatcher` is the destinations' guarded
 * one (destination-address.ts): it connects only to allowed addresses.
 */
export async function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number, dispatcher: Dispatcher): Promise<DestinationAnswer> {
  const { status, retryAfter } = await postJsonReading(url, body, headers, timeoutMs, dispatcher, false);
  return { status, retryAfter };
}

// A destination's answer is read only to find per-item errors in it: a longer one is not such an answer.
const ANSWER_LIMIT = 1 << 20;

/**
 * One attempt whose answer body matters (Langfuse's 207 lists per-event errors): the status and, when
 * `read`, the body as text (empty past 1 MiB).
 */
export async function postJsonReading(url: string, body: string, headers: Record<string, string>, timeoutMs: number, dispatcher: Dispatcher, read = true): Promise<DestinationAnswer & { text: string }> {
  const response = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', 'user-agent': 'switchboard-broadcast', ...headers },
    body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const length = Number(response.headers['content-length'] ?? 0);
  const header = response.headers['retry-after'];
  const retryAfter = Array.isArray(header) ? header[0] : header;
  if (!read || length > ANSWER_LIMIT) {
    await response.body.dump();
    return { status: response.statusCode, retryAfter, text: '' };
  }
  // Read in chunks up to the limit: a destination cannot make the gateway hold an unbounded answer.
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ANSWER_LIMIT) {
      response.body.destroy();
      return { status: response.statusCode, retryAfter, text: '' };
    }
    chunks.push(chunk);
  }
  return { status: response.statusCode, retryAfter, text: Buffer.concat(chunks).toString('utf8') };
}

/**
 * Whether a status may pass if the same delivery is sent again: a server error, a request timeout (408) or a
 * rate limit (429). Any other answer outside 2xx (a refused signature or key, a missing endpoint, a redirect,
 * which is not followed) is the same every time: retrying it only holds the destination's queue back.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** How a delivery with retries went. */
export interface DeliveryResult {
  ok: boolean;
  attempts: number;
  /** The last status, or the last error's message. */
  last: string;
}

/**
 * How long to wait before retry `index` (1 for the first): what the destination's `Retry-After` asked for
 * (delay-seconds or an HTTP date, RFC 9110 §10.2.3), at most MAX_RETRY_AFTER_MS; without one, exponential
 * backoff from `retryBaseMs` with jitter.
 */
export function retryDelayMs(index: number, retryBaseMs: number, retryAfter: string | undefined, now = Date.now()): number {
  const asked = retryAfterSeconds(retryAfter, now);
  if (asked !== undefined) return Math.min(asked * 1000, MAX_RETRY_AFTER_MS);
  const delay = retryBaseMs * 2 ** (index - 1);
  return delay / 2 + Math.random() * (delay / 2);
}

/**
 * Runs `attempt` (which builds and posts a fresh request) until it gets a 2xx or a final answer
 * (isRetryableStatus), the retries are spent or the signals end it: after `stop` (a destination deleted,
 * disabled or changed, or the shutdown's flush budget spent) no request starts, after `lastTry` (the shutdown)
 * no retry; an attempt already sent finishes. A retryable answer's `Retry-After` sets the wait before the next
 * attempt (retryDelayMs).
 */
export async function deliverWithRetries(attempt: () => Promise<DestinationAnswer>, options: { retries: number; retryBaseMs: number }, signals: DeliverySignals): Promise<DeliveryResult> {
  const { stop, lastTry } = signals;
  let last = '';
  let retryAfter: string | undefined;
  for (let index = 0; index <= options.retries; index += 1) {
    if (index > 0 && !lastTry.aborted) await sleep(retryDelayMs(index, options.retryBaseMs, retryAfter), undefined, { signal: AbortSignal.any([stop, lastTry]) }).catch(() => undefined);
    if (stop.aborted || (index > 0 && lastTry.aborted)) return { ok: false, attempts: index, last: last === '' ? 'stopped' : `${last}, then stopped` };
    retryAfter = undefined;
    try {
      const answer = await attempt();
      const { status } = answer;
      if (status >= 200 && status < 300) return { ok: true, attempts: index + 1, last: String(status) };
      last = `HTTP ${status}`;
      if (!isRetryableStatus(status)) return { ok: false, attempts: index + 1, last: `${last}, not retried` };
      retryAfter = answer.retryAfter;
    } catch (error) {
      last = (error as Error).name === 'TimeoutError' ? 'timed out' : ((error as Error).message ?? 'failed');
    }
  }
  return { ok: false, attempts: options.retries + 1, last };
}
