/**
 * Finds which alternative of a union a refused value meant. A value matching none of a `oneOf`/`anyOf`'s
 * alternatives gets every alternative's complaints from the validator, in spec order, so
 * `{type: "max_cost"}` was told first that it lacks `step_count`. A value names its alternative: by a tag (a
 * `type`, `id` or `role` whose `const` or `enum` one alternative holds), or by being the one JSON type only one
 * alternative takes (an array for `string | array` content). That alternative is found in the bundled spec
 * along the value's path and the value is checked against it alone, so the client hears what is wrong with
 * what it sent. ajv's own `discriminator` cannot do this: it needs a `const` in every alternative, and the
 * catch-all alternatives (`UnknownStopCondition`, unknown content blocks) take any other tag with `not`.
 */
import type { ErrorDetail } from '#src/errors.ts';
import { specDocument, specValidator, toErrorDetails } from '#src/http/spec-schemas.ts';
import { alternativeRoots, pruneAlternatives, under } from '#src/http/validation-details.ts';
import { fieldName } from '#src/http/validation-reason.ts';
import { deref, locate, specNode, unionBranch, valueAt, type Located, type Tag } from '#src/http/spec-walk.ts';

/** The complaints of the alternative a value chose, at the path of the union it failed. */
export interface ChosenBranch {
  path: string;
  /** The tag that chose it (`type: "max_cost"`), when a tag did. */
  tag?: Tag;
  details: ErrorDetail[];
  /** The unions inside it the value's parts chose alternatives of. */
  nested: ChosenBranch[];
}

const bodySchemas = new Map<string, Located | null>();

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The JSON body's schema of the operation, found by the operationId the validator matched.
function bodySchema(operationId: string): Located | null {
  const cached = bodySchemas.get(operationId);
  if (cached !== undefined) return cached;
  let found: Located | null = null;
  const paths = specDocument().paths;
  for (const [path, item] of Object.entries(isObject(paths) ? paths : {})) {
    for (const [method, operation] of Object.entries(isObject(item) ? item : {})) {
      if (!isObject(operation) || operation.operationId !== operationId) continue;
      const requestBody = deref(specNode(['paths', path, method, 'requestBody']));
      found = deref(requestBody && specNode([...requestBody.segments, 'content', 'application/json', 'schema'])) ?? null;
    }
  }
  bodySchemas.set(operationId, found);
  return found;
}

function relativeSegments(path: string, base: string): string[] {
  return path.slice(base.length).split('/').filter((segment) => segment !== '');
}

function explain(details: readonly ErrorDetail[], from: Located, basePath: string, baseValue: unknown, depth: number): ChosenBranch[] {
  const chosen: ChosenBranch[] = [];
  for (const root of alternativeRoots(details)) {
    // Inside a chosen alternative, only unions nested deeper than it are explained again.
    if (!under(basePath, root) || (depth > 0 && root === basePath)) continue;
    const segments = relativeSegments(root, basePath);
    const union = locate(from, segments, baseValue);
    const value = valueAt(baseValue, segments);
    const branch = union && unionBranch(union, value);
    if (!branch) continue;
    const validate = specValidator(branch.located.pointer);
    // An alternative that accepts the value means another accepted it too (`oneOf`): nothing to narrow.
    if (validate(value)) continue;
    const own = toErrorDetails(validate.errors ?? [], root);
    const nested = depth < 8 ? explain(own, branch.located, root, value, depth + 1) : [];
    chosen.push({ path: root, ...(branch.tag ? { tag: branch.tag } : {}), details: pruneAlternatives(own, nested), nested });
  }
  return chosen;
}

/**
 * For each union of the request body the validator refused, the complaints of the alternative the value
 * chose, or none when it chose none (an unknown tag, no tag at all). An unexpected failure here answers
 * no explanation rather than turning the client's 400 into a 500.
 */
export function chosenBranches(details: readonly ErrorDetail[], body: unknown, operationId: string | undefined): ChosenBranch[] {
  // Most refusals involve no union: they never load the spec.
  if (operationId === undefined || alternativeRoots(details).length === 0) return [];
  try {
    const from = bodySchema(operationId);
    return from ? explain(details, from, '/body', body, 0) : [];
  } catch {
    return [];
  }
}

/** The same for a value checked against the spec schema at `segments` (a plugin entry of the config file). */
export function chosenBranchesOf(details: readonly ErrorDetail[], segments: readonly string[], value: unknown): ChosenBranch[] {
  const from = deref(specNode(segments));
  return from ? explain(details, from, '', value, 0) : [];
}

const MISSING = /^must have required property /;
const WRONG_TYPE = /^must be [a-z]+$/;
const EXTRA = 'must NOT have additional properties';

// The innermost chosen alternative holding `path`: the one whose tag describes the value there.
function innermost(chosen: readonly ChosenBranch[], path: string): ChosenBranch | undefined {
  const outer = chosen.find((branch) => under(branch.path, path));
  return outer ? (innermost(outer.nested, path) ?? outer) : undefined;
}

// `must be string` and `must be array` at one path (a value of neither type) read as `must be string or array`.
function problemAt(details: readonly ErrorDetail[], path: string): string {
  const messages = [...new Set(details.filter((detail) => detail.path === path).map((detail) => detail.message))];
  if (messages.length > 1 && messages.every((message) => WRONG_TYPE.test(message))) return `must be ${messages.map((message) => message.slice(8)).join(' or ')}`;
  return messages.join('; ');
}

/**
 * The 400's reason naming the first complaint of a chosen alternative, with the tag that chose it when the
 * complaint is about the tagged value as a whole (`stop_server_tools_when[0] (type max_cost) must have required
 * property 'max_cost_in_dollars'`), or null when no alternative was chosen.
 */
export function chosenBranchReason(chosen: readonly ChosenBranch[]): string | null {
  const first = chosen.find((branch) => branch.details.length > 0);
  const detail = first?.details[0];
  if (!first || !detail) return null;
  const path = detail.path ?? '';
  const missing = MISSING.test(detail.message);
  if (!missing && detail.message !== EXTRA) return `${fieldName(path)} ${problemAt(first.details, path)}`;
  const owner = path.replace(/\/[^/]*$/, '');
  const tag = innermost(chosen, owner);
  const named = tag?.path === owner && tag.tag ? ` (${tag.tag.name} ${tag.tag.value})` : '';
  const problem = missing ? detail.message : `must NOT have the property '${path.split('/').pop() ?? ''}'`;
  return `${fieldName(owner)}${named} ${problem}`;
}
