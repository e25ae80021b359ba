/**
 * The stop conditions of the server-side tool loop (`stop_server_tools_when`) as the gateway knows them. The
 * spec accepts any `type` (so new ones Anthropic-style clients send get a precise answer, not a list of every
 * variant's complaints); this rule refuses one the gateway does not know with a 400 naming it.
 */
import type { MessageRequest, StopCondition } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';

/** The condition types the gateway implements. */
export const STOP_CONDITION_TYPES = ['step_count_is', 'max_cost', 'has_tool_call', 'max_tokens_used', 'finish_reason_is'] as const;

/** A condition of a type the gateway implements. */
export type KnownStopCondition = Extract<StopCondition, { type: (typeof STOP_CONDITION_TYPES)[number] }>;

const KNOWN: ReadonlySet<string> = new Set(STOP_CONDITION_TYPES);

/** The request's conditions, every one of a known type; a 400 naming the first that is not. */
export function knownStopConditions(conditions: NonNullable<MessageRequest['stop_server_tools_when']>): KnownStopCondition[] {
  conditions.forEach((condition, index) => {
    if (KNOWN.has(condition.type)) return;
    const message = `unknown stop condition type ${JSON.stringify(condition.type)} (this gateway has ${STOP_CONDITION_TYPES.join(', ')})`;
    throw new BadRequestError(`stop_server_tools_when[${index}].type: ${message}`, { details: [{ path: `/body/stop_server_tools_when/${index}/type`, message }] });
  });
  return conditions as KnownStopCondition[];
}
