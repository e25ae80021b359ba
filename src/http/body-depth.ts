/**
 * How deeply a JSON body may nest. JSON.parse reads any depth, but JSON.stringify, the validator and the
 * translators recurse: a body some thousands of levels deep (in a field the gateway passes through, a tool's
 * `input_schema`, `metadata`) overflowed the stack as a 500. Anthropic's own API refuses such bodies too.
 */
import { BadRequestError } from '#src/errors.ts';

/** The deepest nesting of objects and arrays a request body may have. @see the spec's info description */
export const MAX_BODY_DEPTH = 512;

// Recursion is bounded by the limit itself, so it cannot overflow; strings and numbers end a branch at once.
function deeperThan(value: unknown, remaining: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (remaining === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, remaining - 1)) return true;
    return false;
  }
  for (const key in value) if (deeperThan((value as Record<string, unknown>)[key], remaining - 1)) return true;
  return false;
}

/** The 400 for a parsed body nested deeper than MAX_BODY_DEPTH, or undefined when it is not. */
export function bodyDepthError(body: unknown): BadRequestError | undefined {
  return deeperThan(body, MAX_BODY_DEPTH) ? new BadRequestError(`the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`) : undefined;
}
