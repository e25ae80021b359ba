/**
 * The circuit breaker's rules, as pure functions: what an attempt's outcome says about its endpoint, and how
 * a plan is reordered around endpoints whose circuit is open (moved to the back, still tried).
 */
import type { AttemptStatus } from '#src/api-types.ts';

/** What one attempt says about its endpoint's health. */
export type EndpointVerdict = 'healthy' | 'failing' | 'neutral';

/** The key of an endpoint (a model on a provider), as endpoint statistics key it. */
export function endpointKey(model: string, providerSlug: string): string {
  return `${model}|${providerSlug}`;
}

/**
 * An answer (or a refusal) shows the endpoint works; a 5xx, an overload, a timeout, a connection failure or a
 * broken answer shows it failing, whoever's key was used. A rate limit counts only on the gateway's own key:
 * on a customer's key it says something about that key. A rejected request, key or model says nothing about
 * the endpoint's health, nor does an attempt that was never sent.
 */
export function verdictOf(status: AttemptStatus, credential: 'shared' | 'byok'): EndpointVerdict {
  switch (status) {
    case 'success':
    case 'refusal':
      return 'healthy';
    case 'server_error':
    case 'overloaded':
    case 'timeout':
    case 'connection':
    case 'malformed_response':
      return 'failing';
    case 'rate_limited':
      return credential === 'shared' ? 'failing' : 'neutral';
    case 'invalid_request':
    case 'request_too_large':
    case 'authentication':
    case 'not_found':
    case 'unsupported':
    case 'credential_unavailable':
      return 'neutral';
    default: {
      const unreachable: never = status;
      throw new Error(`unknown attempt status ${String(unreachable)}`);
    }
  }
}

/** An endpoint of a plan whose circuit is open: its first attempt in the plan, and when the cool-down ends. */
export interface OpenEndpoint<A> {
  attempt: A;
  retryAt: number;
}

/**
 * The attempts with those on open circuits moved to the back, each group in its own order, and the open
 * endpoints, once each (several keys may serve one endpoint).
 */
export function deprioritizeOpen<A>(attempts: readonly A[], keyOf: (attempt: A) => string, openUntil: (key: string) => number | undefined): { attempts: A[]; open: OpenEndpoint<A>[] } {
  const healthy: A[] = [];
  const moved: A[] = [];
  const open = new Map<string, OpenEndpoint<A>>();
  for (const attempt of attempts) {
    const key = keyOf(attempt);
    const retryAt = openUntil(key);
    if (retryAt === undefined) {
      healthy.push(attempt);
      continue;
    }
    moved.push(attempt);
    if (!open.has(key)) open.set(key, { attempt, retryAt });
  }
  return { attempts: [...healthy, ...moved], open: [...open.values()] };
}
