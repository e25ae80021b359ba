/**
 * What a plain request is charged for the refusals it moved on from: the upstream bills a refused call (what it
 * read and wrote) unless it refused before any output in a category it does not bill
 * (src/messages/refusal-billing.ts), so each billed refused attempt's usage, at its own endpoint's prices, joins the answer's `cost`
 * (and through it the generation record and the key's spending), and `usage.iterations` lists every model
 * call: the refused hops as `message` entries, the call that produced the returned message as a
 * `fallback_message`. The top-level token counts stay the serving call's own, as Anthropic's server-side
 * fallback reports them ("tokens from different models are never summed into one field"): clients such as
 * Claude Code read input plus cache counts as the conversation's context size. The record adds the refused
 * calls' tokens from their attempt records (`refusedUsage`, src/observability/build-generation-record.ts).
 * Pure functions.
 * @see https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback (How refusals are billed; Billing and rate limits)
 * @see src/messages/refusal-billing.ts
 * @see src/messages/tool-loop/loop-tally.ts (RefusedAttemptCharge)
 * @see src/messages/call-iterations.ts
 */
import type { Usage } from '#src/api-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { callIterations } from '#src/messages/call-iterations.ts';
import { stepCost, stepUsageOf, type RefusedAttemptCharge } from '#src/messages/tool-loop/loop-tally.ts';

/**
 * A refused attempt's charge: what its upstream reported it used (its answer's usage, or a stream's events), at
 * its prices, or nothing when its upstream does not bill it (`billed` false: a refusal before any output,
 * src/messages/refusal-billing.ts), its counts kept all the same (they are its `usage.iterations` entry).
 */
export function refusalCharge(attempt: Attempt, reported: Partial<Usage> | undefined, billed = true): RefusedAttemptCharge {
  const usage = stepUsageOf(reported);
  return { attempt, usage, cost: billed ? stepCost(usage, attempt) : 0 };
}

/**
 * The answer's usage (already priced on the serving endpoint, `cost` included) with the refused attempts
 * charged: their costs added to `cost`, and every call an entry of `iterations` (`servedModel`'s last). The
 * counts are left the serving call's. No refusals, the usage itself.
 */
export function withRefusalCharges<T extends Partial<Usage>>(usage: T, servedModel: string, refusals: readonly RefusedAttemptCharge[]): T {
  if (refusals.length === 0) return usage;
  const calls = [...refusals.map((refusal) => ({ model: refusal.attempt.model, usage: refusal.usage })), { model: servedModel, usage: stepUsageOf(usage) }];
  const charged: T = { ...usage };
  charged.iterations = callIterations(calls, true);
  charged.cost = refusals.reduce((sum, refusal) => sum + refusal.cost, usage.cost ?? 0);
  return charged;
}
