/**
 * Walks the bundled spec's schemas along a value's path, as the validator did: through `$ref`, `allOf`,
 * `properties`, `items`, `prefixItems`, `additionalProperties`, and into the one alternative of a union the
 * value chose (see chosen-branch.ts). Only a refused request's explanation walks it; the spec is trusted, so a
 * shape it does not have ends the walk with `undefined` rather than an error.
 */
import { specDocument } from '#src/http/spec-schemas.ts';

type Schema = Record<string, unknown>;

/** A schema of the spec and where it is: the JSON pointer's raw (unescaped) segments. */
export interface Located {
  segments: readonly string[];
  schema: Schema;
  /** The JSON pointer as a `$ref` fragment takes it (each segment `~`-escaped and URI-encoded). */
  pointer: string;
}

/** The tag property and value that chose an alternative. */
export interface Tag {
  name: string;
  value: string;
}

const MAX_DEPTH = 16;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function located(segments: readonly string[], schema: unknown): Located | undefined {
  if (!isObject(schema)) return undefined;
  const pointer = segments.map((segment) => `/${encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('');
  return { segments, schema, pointer };
}

/** The node at raw pointer segments of the spec, when it is an object. */
export function specNode(segments: readonly string[]): Located | undefined {
  let node: unknown = specDocument();
  for (const segment of segments) node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  return located(segments, node);
}

/** Follows `$ref`s (the bundle's refs are all local: `#/components/…`) to the schema they name. */
export function deref(node: Located | undefined): Located | undefined {
  let current = node;
  for (let hops = 0; current && typeof current.schema.$ref === 'string' && hops < MAX_DEPTH; hops++) {
    const ref = current.schema.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = specNode(ref.slice(2).split('/').map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~')));
  }
  return current;
}

/** The part of `value` at a path's segments. */
export function valueAt(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const segment of segments) current = isObject(current) || Array.isArray(current) ? (current as Record<string, unknown>)[segment] : undefined;
  return current;
}

function alternatives(node: Located): Located[] | undefined {
  const keyword = Array.isArray(node.schema.oneOf) ? 'oneOf' : Array.isArray(node.schema.anyOf) ? 'anyOf' : undefined;
  if (!keyword) return undefined;
  return (node.schema[keyword] as unknown[]).flatMap((branch, index) => deref(located([...node.segments, keyword, String(index)], branch)) ?? []);
}

function membersOf(node: Located): Located[] {
  const members = Array.isArray(node.schema.allOf) ? (node.schema.allOf as unknown[]) : [];
  return members.flatMap((member, index) => deref(located([...node.segments, 'allOf', String(index)], member)) ?? []);
}

// The tag by which `value` names this alternative: one of its properties' `const` (or `enum`) values, with no
// other `const` of it contradicted. A nested union is named when one of its own alternatives is.
function tagOf(node: Located, value: Schema, depth = 0): Tag | undefined {
  if (depth > MAX_DEPTH) return undefined;
  let tag: Tag | undefined;
  for (const part of [node, ...membersOf(node)]) {
    const properties = isObject(part.schema.properties) ? part.schema.properties : {};
    for (const [name, property] of Object.entries(properties)) {
      const given = value[name];
      if (!isObject(property) || typeof given !== 'string') continue;
      if (typeof property.const === 'string') {
        if (property.const !== given) return undefined;
        tag ??= { name, value: given };
      } else if (Array.isArray(property.enum) && property.enum.includes(given)) {
        tag ??= { name, value: given };
      }
    }
  }
  if (tag) return tag;
  for (const branch of alternatives(node) ?? []) {
    const nested = tagOf(branch, value, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function admits(node: Located, value: unknown): boolean {
  const declared = node.schema.type;
  if (declared === undefined) return true;
  const types = Array.isArray(declared) ? declared : [declared];
  const type = jsonType(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

function chooseAlternative(branches: readonly Located[], value: unknown): { located: Located; tag?: Tag } | undefined {
  if (isObject(value)) {
    const tagged = branches.flatMap((branch) => {
      const tag = tagOf(branch, value);
      return tag ? [{ located: branch, tag }] : [];
    });
    if (tagged.length === 1) return tagged[0];
    if (tagged.length > 1) return undefined;
  }
  const byType = branches.filter((branch) => admits(branch, value));
  return byType.length === 1 ? { located: byType[0]! } : undefined;
}

/**
 * The alternative of the union at `node` that `value` chose, through nested unions down to one that is not a
 * union, and the innermost tag that chose it; undefined when `node` is no union or the value chose none.
 */
export function unionBranch(node: Located, value: unknown): { located: Located; tag?: Tag } | undefined {
  let current = deref(node);
  let chosen: { located: Located; tag?: Tag } | undefined;
  for (let depth = 0; current && depth < MAX_DEPTH; depth++) {
    const branches = alternatives(current);
    if (!branches) return chosen;
    const next = chooseAlternative(branches, value);
    if (!next) return undefined;
    chosen = { located: next.located, ...(next.tag ?? chosen?.tag ? { tag: next.tag ?? chosen?.tag } : {}) };
    current = next.located;
  }
  return undefined;
}

function childOf(node: Located | undefined, segment: string, value: unknown, depth: number): Located | undefined {
  const here = deref(node);
  if (!here || depth > MAX_DEPTH) return undefined;
  const { schema, segments } = here;
  if (isObject(schema.properties) && segment in schema.properties) return located([...segments, 'properties', segment], schema.properties[segment]);
  if (Array.isArray(value) && /^\d+$/.test(segment)) {
    const index = Number(segment);
    if (Array.isArray(schema.prefixItems) && index < schema.prefixItems.length) return located([...segments, 'prefixItems', segment], schema.prefixItems[index]);
    if (isObject(schema.items)) return located([...segments, 'items'], schema.items);
  }
  for (const member of membersOf(here)) {
    const found = childOf(member, segment, value, depth + 1);
    if (found) return found;
  }
  const branches = alternatives(here);
  if (branches) {
    const chosen = unionBranch(here, value);
    for (const branch of chosen ? [chosen.located] : branches) {
      const found = childOf(branch, segment, value, depth + 1);
      if (found) return found;
    }
  }
  if (isObject(schema.additionalProperties) && isObject(value)) return located([...segments, 'additionalProperties'], schema.additionalProperties);
  return undefined;
}

/** The schema that checks the part of `value` at `segments` below `from`. */
export function locate(from: Located, segments: readonly string[], value: unknown): Located | undefined {
  let node: Located | undefined = from;
  let current = value;
  for (const segment of segments) {
    node = childOf(node, segment, current, 0);
    if (!node) return undefined;
    current = valueAt(current, [segment]);
  }
  return deref(node);
}
