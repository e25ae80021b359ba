/**
 * Client mistakes generated from the bundled spec, one list per operation: bodies that are not JSON or not an
 * object, each required property missing, each property (and each property of an object property) of a type,
 * an enum value or a length the schema refuses, unknown properties where the schema closes the object, query
 * parameters and path ids that cannot be right, and media types that are not JSON. Every body and parameter
 * value is checked against the spec's own schema here, so a case the spec would accept never enters the list.
 * No randomness: the same spec gives the same cases in the same order.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/** A schema or any other node of the spec. */
export type Schema = Record<string, any>;
/** The bundled spec. */
export const spec = parse(readFileSync(fileURLToPath(new URL('../../../generated/openapi.yaml', import.meta.url)), 'utf8')) as Schema;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
(addFormatsModule as unknown as (instance: Ajv2020) => void)(ajv);
ajv.addSchema({ ...spec, $id: 'spec' });

/** One mistake sent to one operation. `path` may hold `{name}` placeholders the suite fills with live ids. */
export interface FuzzCase {
  /** `METHOD template`, the operation as the spec names it. */
  operation: string;
  method: string;
  template: string;
  /** What is wrong, for the test's title. */
  mistake: string;
  path: string;
  /** The query string without `?`, empty for none. */
  query: string;
  headers: Record<string, string>;
  /** The raw body; undefined sends none. */
  body?: string;
  /** Text the error message must contain (the field it names), when the mistake has one. */
  names?: string;
  /** Statuses that are right for this mistake. */
  statuses: number[];
}

/** A schema with its `$ref` chain followed. */
export function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  while (typeof current.$ref === 'string') {
    current = current.$ref.slice(2).split('/').reduce((node: Schema, key: string) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], spec);
  }
  return current;
}

/** An object schema's properties, required names and closedness, `allOf` parts merged. */
export function objectShape(schema: Schema): { properties: Record<string, Schema>; required: string[]; closed: boolean } {
  const resolved = resolve(schema);
  const shape = { properties: { ...(resolved.properties ?? {}) }, required: [...(resolved.required ?? [])], closed: resolved.additionalProperties === false || resolved.unevaluatedProperties === false };
  for (const part of resolved.allOf ?? []) {
    const inner = objectShape(part);
    Object.assign(shape.properties, inner.properties);
    shape.required.push(...inner.required);
    shape.closed ||= inner.closed;
  }
  return shape;
}

const compiled = new Map<string, ValidateFunction>();

/** A copy of a schema taken out of the spec whose `#/…` references still point into the spec. */
function anchored(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchored);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `spec${value}` : anchored(value)]));
}

/** Whether the spec's schema accepts a value (its references resolved in the spec). */
export function isValid(schema: Schema, value: unknown): boolean {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(anchored(schema) as Schema);
    compiled.set(key, validate);
  }
  return validate(value) as boolean;
}

/** A value of each JSON type, tried in this order for one the schema refuses. */
const WRONG_TYPES: unknown[] = ['text', 12, 1.5, true, null, {}, []];

function wrongValues(propertySchema: Schema, isAccepted: (value: unknown) => boolean): { label: string; value: unknown }[] {
  const resolved = resolve(propertySchema);
  const found: { label: string; value: unknown }[] = [];
  const seen = new Set<string>();
  const add = (label: string, value: unknown) => {
    if (seen.has(label) || isAccepted(value)) return;
    seen.add(label);
    found.push({ label, value });
  };
  const typeLabel = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `${typeof value} ${JSON.stringify(value)}`);
  // One value of a wrong JSON type, then one over each limit the schema sets.
  const wrongType = WRONG_TYPES.find((value) => !isAccepted(value));
  if (wrongType !== undefined) add(`type: ${typeLabel(wrongType)}`, wrongType);
  if (resolved.enum || resolved.const !== undefined) add('enum: a value not listed', 'no-such-value');
  if (typeof resolved.maxLength === 'number') add(`maxLength ${resolved.maxLength}: one character more`, 'x'.repeat(resolved.maxLength + 1));
  if (typeof resolved.maximum === 'number') add(`maximum ${resolved.maximum}: 1e308`, 1e308);
  if (typeof resolved.minimum === 'number') add(`minimum ${resolved.minimum}: -1e308`, -1e308);
  if ([resolved.type ?? []].flat().includes('integer')) {
    add('integer: a fraction', 1.5);
    add('integer: 2^64', 2 ** 64);
  }
  if (resolved.format || resolved.pattern) {
    const unmatched = ['not-a-match', '   '].find((candidate) => !isAccepted(candidate));
    if (unmatched !== undefined) add(`${resolved.format ?? 'pattern'}: a value that does not match`, unmatched);
  }
  if (resolved.items) {
    add('an item of the wrong type', [12]);
    add('an item that is an object', [{}]);
  }
  if (resolved.type === 'array' && typeof resolved.maxItems === 'number') add(`maxItems ${resolved.maxItems}: one item more`, Array.from({ length: resolved.maxItems + 1 }, () => ({})));
  return found;
}

function bodyCases(base: Omit<FuzzCase, 'mistake' | 'names' | 'statuses'>, bodySchema: Schema, example: Record<string, unknown>, storesText: boolean): FuzzCase[] {
  const out: FuzzCase[] = [];
  const json = (mistake: string, value: unknown, names?: string) => {
    if (isValid(bodySchema, value)) return;
    out.push({ ...base, mistake, body: JSON.stringify(value), statuses: [400], ...(names !== undefined ? { names } : {}) });
  };
  const notJson = 'the body is not valid JSON';
  const bodies = [
    ['body not JSON', '{"model": ', notJson],
    ['body a JSON array', '[]', 'the body: must be object'],
    ['body a JSON string', '"text"', 'the body must be a JSON object, got a string'],
    ['body a JSON number', '42', 'the body must be a JSON object, got a number'],
    ['body JSON null', 'null', 'the body must be a JSON object, got null'],
    ['body JSON true', 'true', 'the body must be a JSON object, got true'],
    ['body of two JSON values', '{} {}', notJson],
  ] as const;
  for (const [mistake, raw, names] of bodies) out.push({ ...base, mistake, body: raw, names, statuses: [400] });
  for (const [mistake, raw] of [['empty body', ''], ['body only a byte-order mark', '\uFEFF']] as const) {
    out.push({ ...base, mistake, body: raw, names: 'the body is empty', statuses: [400] });
  }
  out.push({ ...base, mistake: 'content-type text/plain', headers: { ...base.headers, 'content-type': 'text/plain' }, body: JSON.stringify(example), statuses: [415] });
  out.push({ ...base, mistake: 'content-type application/x-www-form-urlencoded', headers: { ...base.headers, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=a', statuses: [415] });
  out.push({ ...base, mistake: 'content-type application/json with a charset it is not', headers: { ...base.headers, 'content-type': 'application/json; charset=utf-16' }, body: JSON.stringify(example), statuses: [415] });
  const shape = objectShape(bodySchema);
  for (const name of shape.required) {
    const { [name]: _dropped, ...rest } = example;
    json(`required ${name} missing`, rest, name);
  }
  if (shape.closed) json('an unknown property', { ...example, no_such_field: 1 }, 'no_such_field');
  for (const [name, propertySchema] of Object.entries(shape.properties)) {
    for (const { label, value } of wrongValues(propertySchema, (candidate) => isValid(bodySchema, { ...example, [name]: candidate }))) {
      json(`${name} ${label}`, { ...example, [name]: value }, name);
    }
    // One level down: the properties of an object-valued property, inside an otherwise valid object.
    const inner = objectShape(propertySchema);
    const innerKeys = Object.keys(inner.properties);
    if (innerKeys.length === 0) continue;
    const seed = Object.fromEntries(inner.required.map((key) => [key, exampleOf(inner.properties[key]!)]));
    if (!isValid(bodySchema, { ...example, [name]: seed })) continue;
    if (inner.closed) json(`${name} with an unknown property`, { ...example, [name]: { ...seed, no_such_field: 1 } }, `${name}.no_such_field`);
    for (const key of innerKeys) {
      for (const { label, value } of wrongValues(inner.properties[key]!, (candidate) => isValid(bodySchema, { ...example, [name]: { ...seed, [key]: candidate } }))) {
        json(`${name}.${key} ${label}`, { ...example, [name]: { ...seed, [key]: value } }, `${name}.${key}`);
      }
    }
  }
  if (storesText) out.push(...unstorableTextCases(base, bodySchema, example));
  return out;
}

/** Whether a schema takes free text: a string without an enum, a format or a pattern. */
function isFreeText(schema: Schema): boolean {
  const resolved = resolve(schema);
  return [resolved.type ?? []].flat().includes('string') && !resolved.enum && !resolved.format && !resolved.pattern;
}

/**
 * Text the spec's schema accepts but a PostgreSQL text column cannot store as sent (the NUL character, a lone
 * surrogate), in each free-text property of a management body, top level and one down: a 400 naming it.
 */
function unstorableTextCases(base: Omit<FuzzCase, 'mistake' | 'names' | 'statuses'>, bodySchema: Schema, example: Record<string, unknown>): FuzzCase[] {
  const out: FuzzCase[] = [];
  const add = (name: string, value: Record<string, unknown>) => {
    for (const [label, text] of [['the NUL character', 'a\u0000b'], ['a lone surrogate', 'a\ud800b']] as const) {
      const body = JSON.parse(JSON.stringify(value).replace('"@@@"', JSON.stringify(text))) as unknown;
      if (isValid(bodySchema, body)) out.push({ ...base, mistake: `${name} holding ${label}`, body: JSON.stringify(body), names: name, statuses: [400] });
    }
  };
  for (const [name, propertySchema] of Object.entries(objectShape(bodySchema).properties)) {
    if (isFreeText(propertySchema)) add(name, { ...example, [name]: '@@@' });
    const inner = objectShape(propertySchema);
    const seed = Object.fromEntries(inner.required.map((key) => [key, exampleOf(inner.properties[key]!)]));
    for (const [key, innerSchema] of Object.entries(inner.properties)) {
      if (isFreeText(innerSchema)) add(`${name}.${key}`, { ...example, [name]: { ...seed, [key]: '@@@' } });
    }
  }
  return out;
}

/** A value the schema gives as its example, or the simplest of its type. */
export function exampleOf(schema: Schema): unknown {
  const resolved = resolve(schema);
  if (resolved.examples?.[0] !== undefined) return resolved.examples[0];
  if (resolved.example !== undefined) return resolved.example;
  if (resolved.const !== undefined) return resolved.const;
  if (resolved.enum) return resolved.enum[0];
  const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
  return type === 'string' ? 'a' : type === 'integer' || type === 'number' ? (resolved.minimum ?? 1) : type === 'boolean' ? true : type === 'array' ? [] : {};
}

/** Query values each parameter's schema refuses (checked), plus repeating the parameter. */
function queryCases(base: Omit<FuzzCase, 'mistake' | 'names' | 'statuses'>, parameter: Schema): FuzzCase[] {
  const schema = resolve(parameter.schema);
  const coerce = (raw: string) => (schema.type === 'integer' && /^-?\d+(\.\d+)?(e\d+)?$/i.test(raw) ? Number(raw) : raw);
  const raws = ['abc', '-1', '0', '1.5', '99999999999999999999', 'x'.repeat(Math.max(600, (schema.maxLength ?? 0) + 1)), 'no-such-value', '2025-13-45T99:00:00Z'];
  const cursorLike = /cursor|after_id|before_id/.test(parameter.name) ? ['not-a-cursor', 'eyJsIjoiYnlvayJ9.AAAA', '%E0%A4%A'] : [];
  const cases: FuzzCase[] = [];
  for (const raw of [...raws.filter((value) => !isValid(schema, coerce(value))), ...cursorLike]) {
    cases.push({ ...base, mistake: `query ${parameter.name}=${raw.length > 40 ? `${raw.length} characters` : raw}`, query: `${parameter.name}=${raw.includes('%') ? raw : encodeURIComponent(raw)}`, names: parameter.name, statuses: [400] });
  }
  const valid = exampleOf(parameter.schema);
  const twice = `${parameter.name}=${encodeURIComponent(String(valid))}&${parameter.name}=${encodeURIComponent(String(valid))}`;
  cases.push({ ...base, mistake: `query ${parameter.name} given twice`, query: twice, names: `query parameter ${parameter.name}: is given more than once`, statuses: [400] });
  if (!parameter.allowEmptyValue) cases.push({ ...base, mistake: `query ${parameter.name} empty`, query: `${parameter.name}=`, names: `query parameter ${parameter.name}: is empty`, statuses: [400] });
  if (!parameter.allowReserved) cases.push({ ...base, mistake: `query ${parameter.name} with an unencoded +`, query: `${parameter.name}=+1`, names: `query parameter ${parameter.name}: holds a reserved character`, statuses: [400] });
  // Values JavaScript's Number() reads as integers, which the validator's coercion accepted (src/http/strict-query.ts).
  if (schema.type === 'integer') {
    for (const raw of ['0x10', '1e1', '10.0', '%205']) cases.push({ ...base, mistake: `query ${parameter.name}=${raw} (not decimal digits)`, query: `${parameter.name}=${raw}`, names: `query parameter ${parameter.name}: must be an integer written in decimal digits`, statuses: [400] });
  }
  for (const bracket of ['[a]', '[]']) cases.push({ ...base, mistake: `query ${parameter.name}${bracket} (bracket form)`, query: `${parameter.name}${bracket}=1`, names: `query parameter ${parameter.name}: is written in bracket form`, statuses: [400] });
  return cases;
}

/** Path ids that are malformed (400, or 404 where the spec's id is free text) or name nothing (404). */
function pathCases(base: Omit<FuzzCase, 'mistake' | 'names' | 'statuses'>, parameter: Schema): FuzzCase[] {
  const schema = resolve(parameter.schema);
  const placeholder = `{${parameter.name}}`;
  const absent = schema.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : schema.pattern?.includes('gen_') ? 'gen_0mwwoigezQm9vYmFyYmF6cXV' : schema.pattern ? 'f'.repeat(64) : 'nobody/no-such-model';
  const cases: FuzzCase[] = [{ ...base, mistake: `${parameter.name} that names nothing`, path: base.path.replace(placeholder, absent), statuses: [404] }];
  for (const raw of ['not-an-id', '%00', '..%2Fkeys', 'x'.repeat(2000), '%F0%9F%98%80']) {
    const label = raw.length > 40 ? `${raw.length} characters` : raw;
    cases.push({ ...base, mistake: `${parameter.name} ${label}`, path: base.path.replace(placeholder, raw), statuses: schema.format || schema.pattern ? [400, 404] : [400, 404] });
  }
  for (const raw of ['%E0%A4%A', '%', '%ZZ']) {
    cases.push({ ...base, mistake: `${parameter.name} ${raw} (broken percent-encoding)`, path: base.path.replace(placeholder, raw), names: 'is not valid percent-encoding', statuses: [400] });
  }
  return cases;
}

/** Every operation's generated mistakes, in the spec's order. */
export function generateFuzzCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const [template, item] of Object.entries(spec.paths as Record<string, Schema>)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const operation = item[method] as Schema | undefined;
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
      const media = operation.requestBody?.content?.['application/json'];
      const example = (Object.values(media?.examples ?? {})[0] as Schema | undefined)?.value ?? media?.example ?? {};
      // Mistakes outside the body come with a body the spec accepts, so that each case has one mistake only.
      const validBody = media ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(example) } : { headers: {} as Record<string, string> };
      const base = { operation: `${method.toUpperCase()} ${template}`, method: method.toUpperCase(), template, path: template, query: '', ...validBody };
      cases.push({ ...base, mistake: 'an unknown query parameter', query: 'no_such_parameter=1', names: 'query parameter no_such_parameter: is not a parameter of this operation', statuses: [400] });
      for (const query of ['=', '=1']) cases.push({ ...base, mistake: `a query parameter without a name (?${query})`, query, names: 'a parameter without a name', statuses: [400] });
      for (const parameter of parameters.filter((candidate) => candidate.in === 'query' && candidate.name !== 'beta')) cases.push(...queryCases(base, parameter));
      for (const parameter of parameters.filter((candidate) => candidate.in === 'path')) cases.push(...pathCases(base, parameter));
      for (const parameter of parameters.filter((candidate) => candidate.in === 'header')) {
        const schema = resolve(parameter.schema);
        for (const { label, value } of wrongValues(schema, (candidate) => typeof candidate === 'string' && isValid(schema, candidate)).filter((entry) => typeof entry.value === 'string' && (entry.value as string).length < 10_000)) {
          cases.push({ ...base, mistake: `header ${parameter.name} ${label}`, headers: { ...base.headers, [parameter.name]: value as string }, names: parameter.name.toLowerCase(), statuses: [400] });
        }
      }
      if (media) cases.push(...bodyCases(base, media.schema, example, !template.startsWith('/messages')));
    }
  }
  return cases;
}

/** Whether an operation takes the inference key (the spec's `x-switchboard-key-kind`), or needs no key at all. */
export function keyKindOf(method: string, template: string): 'inference' | 'management' | 'none' {
  const operation = spec.paths[template]?.[method.toLowerCase()] as Schema | undefined;
  if (Array.isArray(operation?.security) && operation.security.length === 0) return 'none';
  return operation?.['x-switchboard-key-kind'] === 'management' ? 'management' : 'inference';
}
