/**
 * A tool loop's `usage.iterations`: every model call the loop made, one entry each, in the order they ran, as
 * Anthropic lists the sampling iterations of its own server-side tool loops (`message` entries) and of its
 * server-side fallback (a refused hop's `message` entry, then the serving hop's entries, the one that produced
 * the returned message typed `fallback_message`). Pure functions of the loop's steps.
 * @see node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts (BetaUsage.iterations,
 *   BetaMessageIterationUsage, BetaFallbackMessageIterationUsage)
 */
import type { Usage } from '#src/api-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { StepRecord, StepUsage } from './loop-tally.ts';

/** One entry of `usage.iterations`. */
export type UsageIteration = NonNullable<Usage['iterations']>[number];

/** One model call of the loop: its model (the gateway slug) and what its upstream reported it used. */
interface LoopCall {
  model: string;
  usage: StepUsage;
}

function callsOf(steps: readonly StepRecord[]): LoopCall[] {
  const calls: LoopCall[] = [];
  for (const step of steps) {
    for (const refusal of step.refusals ?? []) calls.push(callOf(refusal.attempt, refusal.usage));
    calls.push(callOf(step.attempt, step.usage));
  }
  return calls;
}

function callOf(attempt: Attempt, usage: StepUsage): LoopCall {
  return { model: attempt.model, usage };
}

// A call whose upstream listed its own iterations (a compaction, an advisor's call, Anthropic's own fallback)
// is those entries as it sent them, its finer account; any other call is one `message` entry on its model.
function entriesOf(call: LoopCall): UsageIteration[] {
  const { usage } = call;
  if (Array.isArray(usage.iterations) && usage.iterations.length > 0) return usage.iterations.map((entry) => ({ ...entry }));
  return [
    {
      type: 'message',
      model: call.model,
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
      ...(usage.cache_creation ? { cache_creation: usage.cache_creation } : {}),
    },
  ];
}

/**
 * The loop's iterations. Only the last entry may be a `fallback_message`, as in Anthropic's answers, where its
 * presence says a fallback model served the response: it is when a refusal moved a step on to another model and
 * the model of the loop's last call is not the model its first call ran on; an upstream's own `fallback_message`
 * from an earlier call is a `message` here, that call's output not being the returned message.
 */
export function loopIterations(steps: readonly StepRecord[]): UsageIteration[] {
  const calls = callsOf(steps);
  const entries = calls.flatMap(entriesOf);
  const last = entries.length - 1;
  entries.forEach((entry, index) => {
    if (index < last && entry.type === 'fallback_message') entry.type = 'message';
  });
  const first = calls[0];
  const final = calls.at(-1);
  const servedByFallback = steps.some((step) => (step.refusals?.length ?? 0) > 0) && first !== undefined && final !== undefined && final.model !== first.model;
  const terminal = entries[last];
  if (servedByFallback && terminal?.type === 'message') terminal.type = 'fallback_message';
  return entries;
}
