/**
 * What the `moderation` plugin's screening by a catalog model (`engine: model`) costs: the attempt that
 * answered, its tokens and its price. It is charged to the gateway key like any model call, so the answer's
 * `usage.cost`, the generation record and the key's spending all include it. Plain data and pure functions.
 * @see ModerationScreening in openapi/components/schemas/plugin-reports.yaml
 */
import type { ModerationScreening, Usage } from '#src/api-types.ts';
import { computeCost, usageFromAnthropic } from '#src/catalog/pricing.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';

/** The tokens of the screening call, in Anthropic's convention. */
export type ScreeningUsage = Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'>;

/** One answered screening call and what it cost. */
export interface ScreeningCharge {
  /** The attempt that answered the screening. */
  attempt: Attempt;
  usage: ScreeningUsage;
  /** USD, on the endpoint that served the screening. */
  cost: number;
}

/** The charge of a screening answer with this usage on this attempt. */
export function screeningCharge(attempt: Attempt, usage: Partial<Usage>): ScreeningCharge {
  const counted: ScreeningUsage = {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
  };
  return { attempt, usage: counted, cost: computeCost(usageFromAnthropic(counted), attempt.pricing) };
}

/** The tokens a screening counts against a tokens-per-minute limit (input plus output, cache reads and writes included). */
export function screeningTokens(charge: ScreeningCharge): number {
  const { usage } = charge;
  return usage.input_tokens + usage.output_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** The screening as the plugin report and the generation record show it. */
export function describeScreening(charge: ScreeningCharge): ModerationScreening {
  return {
    model: charge.attempt.model,
    provider: charge.attempt.provider.displayName,
    is_byok: isByok(charge.attempt),
    usage: { ...charge.usage },
    cost: charge.cost,
  };
}
