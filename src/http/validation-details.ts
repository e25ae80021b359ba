/**
 * Makes the validator's complaints readable. For a value that matches none of a `oneOf`/`anyOf`'s
 * alternatives, ajv reports every alternative's failure (a text block without `text` also yields "must have
 * required property 'source'", "'id'", …, one per other block type, and "must NOT be valid" from the variant
 * that takes every unknown `type`). Within such a subtree only the most specific, informative complaints are
 * kept; complaints elsewhere in the request are kept as they are.
 */
import type { ErrorDetail } from '#src/errors.ts';

const ALTERNATIVES = /^must match (exactly one|a) schema in (oneOf|anyOf)$/;
// Complaints that only say which alternative a value is not: another `type` or `role` constant, one of the
// known values of a variant's tag, or "not one of the known ones" from the catch-all variant.
const BRANCH_TAG = /^must be equal to constant$|^must NOT be valid$/;
const TAG_VALUES = /^must be equal to one of the allowed values/;
const TAG_PATH = /\/(type|role)$/;

function isBranchTag(detail: ErrorDetail): boolean {
  return BRANCH_TAG.test(detail.message) || (TAG_VALUES.test(detail.message) && TAG_PATH.test(detail.path ?? ''));
}
const MISSING = /^must have required property /;
const WRONG_TYPE = /^must be (string|array|object|number|integer|boolean|null)(,|$)/;

function depth(path: string | undefined): number {
  return (path ?? '').split('/').length;
}

/** Whether `path` is `root` or lies below it. */
export function under(root: string, path: string | undefined): boolean {
  return path === root || (path ?? '').startsWith(`${root}/`);
}

function mostSpecific(group: ErrorDetail[]): ErrorDetail[] {
  const candidates = group.filter((detail) => !ALTERNATIVES.test(detail.message) && !isBranchTag(detail));
  // A complaint about a tag itself (a pattern on `type`, a missing `type`) says least: it is kept only when
  // nothing else was said.
  const untagged = candidates.filter((detail) => !TAG_PATH.test(detail.path ?? ''));
  const informative = untagged.filter((detail) => !MISSING.test(detail.message) && !WRONG_TYPE.test(detail.message));
  const structural = untagged.filter((detail) => MISSING.test(detail.message) || WRONG_TYPE.test(detail.message));
  const pick = informative.length > 0 ? informative : structural.length > 0 ? structural : candidates.length > 0 ? candidates : group;
  const deepest = Math.max(...pick.map((detail) => depth(detail.path)));
  const seen = new Set<string>();
  return pick.filter((detail) => {
    const key = `${detail.path}\u0000${detail.message}`;
    if (depth(detail.path) !== deepest || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The paths of the outermost values that matched none of a union's alternatives, shortest first. */
export function alternativeRoots(details: readonly ErrorDetail[]): string[] {
  return details
    .filter((detail) => ALTERNATIVES.test(detail.message))
    .map((detail) => detail.path ?? '')
    .sort((a, b) => a.length - b.length)
    .filter((path, index, paths) => !paths.slice(0, index).some((outer) => under(outer, path)));
}

/**
 * The validator's details with the noise of unmatched alternatives removed. Where `chosen` has the
 * complaints of the alternative a value chose (chosen-branch.ts), those replace the union's; elsewhere the most
 * specific complaints of all its alternatives are kept.
 */
export function pruneAlternatives(details: ErrorDetail[], chosen: readonly { path: string; details: ErrorDetail[] }[] = []): ErrorDetail[] {
  const roots = alternativeRoots(details);
  if (roots.length === 0) return details;
  const kept = details.filter((detail) => !roots.some((root) => under(root, detail.path)));
  for (const root of roots) {
    const own = chosen.find((branch) => branch.path === root)?.details;
    kept.push(...(own && own.length > 0 ? own : mostSpecific(details.filter((detail) => under(root, detail.path)))));
  }
  return kept;
}
