/**
 * What a plain request is charged for the refusals it moved on from: the upstream bills a refused call (what it
 * read and wrote), so each refused attempt's usage, at its own endpoint's prices, joins the answer's counts and
 * `cost` (and through them the generation record and the key's spending), and `usage.iterations` lists every
 * model call: the refused hops as `message` entries, the call that produced the returned message as a
 * `fallback_message`, as a tool loop's refused steps are charged and listed. Pure functions.
 * @see src/messages/tool-loop/loop-tally.ts (RefusedAttemptCharge, summedTokens)
 * @see src/messages/call-iterations.ts
 */
import type { Usage } from '#src/api-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { addServerToolUsage, type ServerToolUsage } from '#src/server-tools/index.ts';
import { callIterations } from '#src/messages/call-iterations.ts';
import { stepCost, stepUsageOf, summedTokens, type RefusedAttemptCharge } from '#src/messages/tool-loop/loop-tally.ts';

/** A refused attempt's charge: what its upstream reported it used (its answer's usage, or a stream's events), at its prices. */
export function refusalCharge(attempt: Attempt, reported: Partial<Usage> | undefined): RefusedAttemptCharge {
  const usage = stepUsageOf(reported);
  return { attempt, usage, cost: stepCost(usage, attempt) };
}

/**
 * The answer's usage (already priced on the serving endpoint, `cost` included) with the refused attempts
 * charged: their tokens added to the counts, their costs to `cost`, and every call an entry of `iterations`
 * (`servedModel`'s last). No refusals, the usage itself.
 */
export function withRefusalCharges<T extends Partial<Usage>>(usage: T, servedModel: string, refusals: readonly RefusedAttemptCharge[]): T {
  if (refusals.length === 0) return usage;
  const served = stepUsageOf(usage);
  const billed = [...refusals.map((refusal) => refusal.usage), served];
  let serverToolUse: ServerToolUsage = {};
  for (const part of billed) serverToolUse = addServerToolUsage(serverToolUse, part.server_tool_use);
  const calls = [...refusals.map((refusal) => ({ model: refusal.attempt.model, usage: refusal.usage })), { model: servedModel, usage: served }];
  const charged: T = { ...usage, ...summedTokens(billed) };
  if (Object.keys(serverToolUse).length > 0) charged.server_tool_use = serverToolUse;
  charged.iterations = callIterations(calls, true);
  charged.cost = refusals.reduce((sum, refusal) => sum + refusal.cost, usage.cost ?? 0);
  return charged;
}
