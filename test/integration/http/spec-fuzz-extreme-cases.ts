/**
 * Values the spec accepts at the edges of what it allows, generated from the bundled spec like the mistakes of
 * spec-fuzz-cases.ts: a number's bounds (or the largest JSON number where the spec sets none), a string of its
 * maximum length in ASCII and in astral characters, in each write operation's body (top level and one down)
 * and in each query parameter. Every value is checked against the spec's own schema. No randomness.
 */
import { exampleOf, isValid, objectShape, resolve, spec, type Schema } from '#test/integration/http/spec-fuzz-cases.ts';

/** A value the spec accepts at the edge of what it allows, sent in one operation's body or query. */
export interface ExtremeCase {
  operation: string;
  method: string;
  template: string;
  /** Where the value goes: `name`, `object.name` in the body, or `?name` in the query. */
  property: string;
  label: string;
  body?: Record<string, unknown>;
  /** The query string without `?`, empty for none. */
  query: string;
}

/** `unbounded`: the length of a string the schema does not bound (a query's must fit node's 16 kB header limit). */
function extremesOf(propertySchema: Schema, unbounded = 10_000): { label: string; value: unknown }[] {
  const resolved = resolve(propertySchema);
  const types = new Set<string>([resolved.type ?? []].flat());
  const values: { label: string; value: unknown }[] = [];
  if (types.has('integer') || types.has('number')) {
    const integer = types.has('integer');
    values.push({ label: 'its maximum', value: resolved.maximum ?? (integer ? Number.MAX_SAFE_INTEGER : 1e308) });
    values.push({ label: 'its minimum', value: resolved.minimum ?? (integer ? -Number.MAX_SAFE_INTEGER : -1e308) });
    if (!integer) values.push({ label: 'a tiny fraction', value: (resolved.minimum ?? 0) + 1e-300 });
  }
  if (types.has('string') && !resolved.enum && !resolved.format && !resolved.pattern) {
    const length = resolved.maxLength ?? unbounded;
    values.push({ label: `${length} characters`, value: 'x'.repeat(length) });
    values.push({ label: `${length} emoji (astral characters)`, value: '\u{1F600}'.repeat(length) });
  }
  return values;
}

function bodyExtremes(base: Omit<ExtremeCase, 'property' | 'label' | 'body'>, bodySchema: Schema, example: Record<string, unknown>): ExtremeCase[] {
  const cases: ExtremeCase[] = [];
  const add = (property: string, label: string, body: Record<string, unknown>) => {
    if (isValid(bodySchema, body)) cases.push({ ...base, property, label, body });
  };
  for (const [name, propertySchema] of Object.entries(objectShape(bodySchema).properties)) {
    for (const { label, value } of extremesOf(propertySchema)) add(name, label, { ...example, [name]: value });
    // One level down, inside the smallest object the schema accepts there.
    const inner = objectShape(propertySchema);
    const seed = Object.fromEntries(inner.required.map((key) => [key, exampleOf(inner.properties[key]!)]));
    for (const [key, innerSchema] of Object.entries(inner.properties)) {
      for (const { label, value } of extremesOf(innerSchema)) add(`${name}.${key}`, label, { ...example, [name]: { ...seed, [key]: value } });
    }
  }
  return cases;
}

/** Every operation with one body property (top level or one down) or query parameter at an edge the spec allows. */
export function generateExtremeCases(): ExtremeCase[] {
  const cases: ExtremeCase[] = [];
  for (const [template, item] of Object.entries(spec.paths as Record<string, Schema>)) {
    for (const method of ['get', 'post', 'put', 'patch']) {
      const operation = item[method] as Schema | undefined;
      if (!operation) continue;
      const base = { operation: `${method.toUpperCase()} ${template}`, method: method.toUpperCase(), template, query: '' };
      const media = operation.requestBody?.content?.['application/json'];
      // A change touches one field; a creation starts from the spec's example.
      const example = method === 'patch' ? {} : (((Object.values(media?.examples ?? {})[0] as Schema | undefined)?.value ?? media?.example ?? {}) as Record<string, unknown>);
      if (media) cases.push(...bodyExtremes(base, media.schema, example));
      for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve).filter((candidate) => candidate.in === 'query')) {
        const schema = resolve(parameter.schema);
        for (const { label, value } of extremesOf(schema, 1000)) {
          if (!isValid(schema, value) || (typeof value === 'number' && !Number.isSafeInteger(value) && schema.type === 'integer')) continue;
          const query = `${parameter.name}=${encodeURIComponent(String(value))}`;
          cases.push({ ...base, property: `?${parameter.name}`, label, query, ...(media ? { body: example } : {}) });
        }
      }
    }
  }
  return cases;
}
