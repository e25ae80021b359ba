/**
 * The one HTTP client every upstream call goes through: an undici dispatcher with keep-alive pools per
 * origin. The global `fetch` costs several times the CPU per request (measured in TOOLCHAIN-NOTES), so
 * passthrough calls dispatch on it directly (upstream-exchange.ts) and the AI SDK gets a `fetch` bound to it.
 */
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';

/** Timeouts of upstream calls, from the gateway configuration. */
export interface UpstreamTimeouts {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectTimeoutMs: 10_000, headersTimeoutMs: 120_000, bodyTimeoutMs: 120_000 };

let currentTimeouts: UpstreamTimeouts = DEFAULT_TIMEOUTS;
let dispatcher: Agent = createDispatcher(DEFAULT_TIMEOUTS);

function createDispatcher(timeouts: UpstreamTimeouts): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    // No cap per origin: each open stream holds one HTTP/1.1 connection for as long as the model writes, so a
    // cap queues every stream past it behind streams that may last minutes (1,000 open streams: `--streams`).
    connections: null,
    pipelining: 1,
    connect: { timeout: timeouts.connectTimeoutMs },
    headersTimeout: timeouts.headersTimeoutMs,
    bodyTimeout: timeouts.bodyTimeoutMs,
  });
}

/** Replaces the shared dispatcher (at start, from configuration). */
export function configureUpstreamHttp(timeouts: Partial<UpstreamTimeouts>): void {
  const previous = dispatcher;
  currentTimeouts = { ...DEFAULT_TIMEOUTS, ...timeouts };
  dispatcher = createDispatcher(currentTimeouts);
  // In-flight calls finish on the old pools; new calls already use the new ones.
  previous.close().catch(() => undefined);
}

/** The configured wait for an upstream's response headers, in milliseconds. */
export function upstreamHeadersTimeoutMs(): number {
  return currentTimeouts.headersTimeoutMs;
}

/** The shared dispatcher, for callers that use undici directly. */
export function upstreamDispatcher(): Dispatcher {
  return dispatcher;
}

/** A WHATWG `fetch` over the shared dispatcher, for libraries (the AI SDK) that take a fetch function. */
export const upstreamFetch: typeof globalThis.fetch = (input, init) =>
  undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher }) as unknown as Promise<Response>;

/**
 * Closes every pooled connection (graceful shutdown). Several gateways may share this process (tests), so a
 * fresh dispatcher takes over first: closing never breaks another server's next call.
 */
export async function closeUpstreamHttp(): Promise<void> {
  const previous = dispatcher;
  dispatcher = createDispatcher(currentTimeouts);
  await previous.close().catch(() => undefined);
}
