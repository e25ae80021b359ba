/**
 * What the gateway adds to the answer an attempt served as the upstream sent it (a plain request's, or a tool
 * loop's Anthropic-format attempt whose answer is passed through): its model slug and provider, the cost at
 * the serving endpoint's prices (the moderation screening's added) and, on opt-in, the routing metadata.
 */
import { computeAnthropicCost } from '#src/catalog/pricing.ts';
import type { AdditionsContext } from '#src/messages/gateway-additions.ts';
import { buildGatewayMetadata } from '#src/messages/gateway-metadata.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { isByok, servedPricing, type Attempt } from '#src/routing/attempt.ts';
import type { RequestPlan } from '#src/routing/plan-request.ts';

/** The additions of `attempt`'s answer; `records`: the attempts the metadata lists, read when it is built. */
export function answerAdditions(plan: RequestPlan, attempt: Attempt, records: () => readonly AttemptRecord[], context: MessagesRequestContext): AdditionsContext {
  const additions: AdditionsContext = {
    model: attempt.model,
    providerName: attempt.provider.displayName,
    isByok: isByok(attempt),
    // The key was charged the moderation screening too: the answer's cost is all it was charged.
    // At the standard prices when a fast attempt's upstream says it served standard speed (`usage.speed`).
    priceUsage: (usage) => computeAnthropicCost(usage, servedPricing(attempt, usage.speed), attempt.modelPricing) + (context.screening?.cost ?? 0),
  };
  if (context.wantsMetadata) {
    additions.metadata = () => buildGatewayMetadata({ plan, served: attempt, records: records(), startedAt: context.startedAt });
  }
  return additions;
}
