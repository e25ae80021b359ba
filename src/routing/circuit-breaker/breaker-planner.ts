/**
 * The request planner with the circuit breaker around it: each plan's attempts on open circuits move to the
 * back (and the plan names them, for `gateway_metadata`), and each request's attempt outcomes feed the
 * breaker before the planner's own bookkeeping (sticky pins, endpoint statistics).
 */
import type { RequestPlanner } from '#src/routing/plan-request.ts';
import type { CircuitBreaker } from '#src/routing/circuit-breaker/circuit-breaker.ts';
import { deprioritizeOpen, endpointKey } from '#src/routing/circuit-breaker/circuit-rules.ts';

/** Wraps a planner with a breaker. */
export function withCircuitBreaker(planner: RequestPlanner, breaker: CircuitBreaker): RequestPlanner {
  return {
    async plan(request, context) {
      const plan = await planner.plan(request, context);
      if (!breaker.anyOpen()) return plan;
      const { attempts, open } = deprioritizeOpen(plan.attempts, (attempt) => endpointKey(attempt.model, attempt.provider.slug), (key) => breaker.openUntil(key));
      if (open.length === 0) return plan;
      return {
        ...plan,
        attempts,
        circuitOpen: open.map(({ attempt, retryAt }) => ({ model: attempt.model, provider: attempt.provider.displayName, retryAt })),
      };
    },

    recordOutcomes(plan, outcomes, served) {
      breaker.record(outcomes);
      planner.recordOutcomes(plan, outcomes, served);
    },

    recordThreadTurn(plan, turn) {
      planner.recordThreadTurn(plan, turn);
    },
  };
}
