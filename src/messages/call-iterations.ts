/**
 * `usage.iterations` built from the model calls a request made, one entry each in the order they ran, as
 * Anthropic lists the sampling iterations of its own server-side tool loops (`message` entries) and of its
 * server-side fallback (a refused hop's `message` entry, then the serving hop's, the one that produced the
 * returned message typed `fallback_message`). Shared by the tool loop and a plain request's refusal fallback.
 * Pure functions.
 * @see node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts (BetaUsage.iterations,
 *   BetaMessageIterationUsage, BetaFallbackMessageIterationUsage)
 */
import type { Usage } from '#src/api-types.ts';

/** One entry of `usage.iterations`. */
export type UsageIteration = NonNullable<Usage['iterations']>[number];

/** One model call: its model (the gateway slug) and what its upstream reported it used. */
export interface ModelCall {
  model: string;
  usage: Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'cache_creation' | 'iterations'>;
}

// A call whose upstream listed its own iterations (a compaction, an advisor's call, Anthropic's own fallback)
// is those entries as it sent them, its finer account; any other call is one `message` entry on its model.
function entriesOf(call: ModelCall): UsageIteration[] {
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
 * The calls' iterations. Only the last entry may be a `fallback_message`, as in Anthropic's answers, where its
 * presence says a fallback model served the response: it is when `movedOnAfterRefusal` (a refusal moved the
 * request on to another model) and the last call's model is not the first call's; an upstream's own
 * `fallback_message` from an earlier call is a `message` here, that call's output not being the returned message.
 */
export function callIterations(calls: readonly ModelCall[], movedOnAfterRefusal: boolean): UsageIteration[] {
  const entries = calls.flatMap(entriesOf);
  const last = entries.length - 1;
  entries.forEach((entry, index) => {
    if (index < last && entry.type === 'fallback_message') entry.type = 'message';
  });
  const first = calls[0];
  const final = calls.at(-1);
  const terminal = entries[last];
  if (movedOnAfterRefusal && first !== undefined && final !== undefined && final.model !== first.model && terminal?.type === 'message') terminal.type = 'fallback_message';
  return entries;
}
