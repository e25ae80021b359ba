/**
 * How deeply a JSON body may nest. JSON.parse reads any depth, but JSON.stringify, the validator and the
 * translators recurse: a body some thousands of levels deep (in a field the gateway passes through, a tool's
 * `input_schema`, `metadata`) overflowed the stack as a 500. Anthropic's own API refuses such bodies too.
 *
 * The check runs on every `POST /messages` body, so it visits only objects and arrays, by index over
 * `Object.values` rather than `for…in` (7.8 against 12.0 µs for a 10 kB Claude Code request, whose JSON.parse
 * takes about 60), and skips bodies too short to nest that deep at all.
 */
import { BadRequestError } from '#src/errors.ts';

/** The deepest nesting of objects and arrays a request body may have. @see the spec's info description */
export const MAX_BODY_DEPTH = 512;

// Each level past the limit needs an opening and a closing character.
const SHORTEST_TOO_DEEP = 2 * (MAX_BODY_DEPTH + 1);

// Recursion is bounded by the limit itself, so it cannot overflow. `container` is an object or an array.
function deeperThan(container: object, remaining: number): boolean {
  if (remaining === 0) return true;
  const items = Array.isArray(container) ? (container as unknown[]) : Object.values(container);
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (typeof item === 'object' && item !== null && deeperThan(item, remaining - 1)) return true;
  }
  return false;
}

/**
 * The 400 for a parsed body nested deeper than MAX_BODY_DEPTH, or undefined when it is not. `length`, the
 * body's length in characters or bytes when known, spares the walk for a body too short to be that deep.
 */
export function bodyDepthError(body: unknown, length = Number.POSITIVE_INFINITY): BadRequestError | undefined {
  if (length < SHORTEST_TOO_DEEP || typeof body !== 'object' || body === null) return undefined;
  return deeperThan(body, MAX_BODY_DEPTH) ? new BadRequestError(`the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`) : undefined;
}
