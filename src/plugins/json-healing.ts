/**
 * Repairs one structured-output text into JSON matching the requested schema: a maintained JSON-repair
 * library (jsonrepair) does the repairing (cut-off documents closed, trailing commas dropped, single quotes
 * made double, markdown code fences stripped), ajv checks the result against the request's JSON schema.
 * Schema-valid JSON is never touched. Compiled schemas are cached (bounded), since clients send the same few.
 * @see ResponseHealingPlugin in openapi/components/schemas/plugins.yaml
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { jsonrepair } from 'jsonrepair';

/** What healing made of one text. */
export type HealOutcome = { status: 'valid' } | { status: 'healed'; text: string } | { status: 'unhealable'; note: string };

/** Checks a parsed value against the requested schema: null when valid, else the first complaint. */
export type SchemaCheck = (value: unknown) => string | null;

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, logger: false });
const compiled = new Map<string, ValidateFunction | string>();
const MAX_CACHED_SCHEMAS = 256;

/**
 * The check for a JSON schema. A schema ajv cannot compile checks nothing beyond JSON syntax (the vendor
 * accepted it, so the gateway does not second-guess it) and says so in the note of an unhealable answer.
 */
export function schemaCheck(schema: unknown): SchemaCheck {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (entry === undefined) {
    try {
      entry = ajv.compile(schema as object);
    } catch (error) {
      entry = `the schema could not be compiled (${error instanceof Error ? error.message : 'invalid'})`;
    }
    if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, entry);
  }
  if (typeof entry === 'string') return () => null;
  const validate = entry;
  return (value) => {
    if (validate(value)) return null;
    const first = validate.errors?.[0];
    return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'does not match the schema';
  };
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Texts that may hold the JSON, most faithful first: the whole text, the inside of the first fenced code
 * block, and the span from the first `{` or `[` to the last `}` or `]` (prose around the JSON).
 */
export function jsonCandidates(text: string): string[] {
  const candidates = [text];
  const fenceStart = text.indexOf('```');
  if (fenceStart >= 0) {
    const bodyStart = text.indexOf('\n', fenceStart);
    const fenceEnd = bodyStart >= 0 ? text.indexOf('```', bodyStart) : -1;
    if (bodyStart >= 0) candidates.push(text.slice(bodyStart + 1, fenceEnd >= 0 ? fenceEnd : undefined));
  }
  const open = text.search(/[[{]/);
  const close = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (open >= 0) candidates.push(text.slice(open, close > open ? close + 1 : undefined));
  return [...new Set(candidates.map((candidate) => candidate.trim()))].filter((candidate) => candidate !== '');
}

/** Heals one text against the schema check. */
export function healJson(text: string, check: SchemaCheck): HealOutcome {
  const direct = parse(text);
  if (direct.ok) {
    const problem = check(direct.value);
    // Valid JSON is left as it came, matching or not: repairing cannot change what it says.
    return problem === null ? { status: 'valid' } : { status: 'unhealable', note: `the output is JSON but does not match the schema: ${problem}` };
  }
  let mismatch: string | null = null;
  let repairError = 'no JSON found';
  for (const candidate of jsonCandidates(text)) {
    let repaired: string;
    try {
      repaired = jsonrepair(candidate);
    } catch (error) {
      repairError = error instanceof Error ? error.message : 'not repairable';
      continue;
    }
    const parsed = parse(repaired);
    if (!parsed.ok) continue;
    const problem = check(parsed.value);
    if (problem === null) return { status: 'healed', text: repaired };
    mismatch ??= problem;
  }
  return { status: 'unhealable', note: mismatch ? `the repaired output does not match the schema: ${mismatch}` : `the output is not repairable JSON: ${repairError}` };
}

/** The schema a request asks its answer to follow, or undefined when it asks for no `json_schema` output. */
export function requestedSchema(format: unknown): unknown {
  if (typeof format !== 'object' || format === null) return undefined;
  const { type, schema } = format as { type?: unknown; schema?: unknown };
  return type === 'json_schema' && typeof schema === 'object' && schema !== null ? schema : undefined;
}
