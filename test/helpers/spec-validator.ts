/**
 * Validates HTTP responses against the bundled spec, independently of the server's own validator, so the
 * contract suite can hold the Prism mock and the real server to the same standard.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const specPath = fileURLToPath(new URL('../../generated/openapi.yaml', import.meta.url));

interface SpecDocument {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> }>>;
  [key: string]: unknown;
}

const spec = parse(readFileSync(specPath, 'utf8')) as SpecDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
const addFormats = addFormatsModule as unknown as (instance: Ajv2020) => void;
addFormats(ajv);
ajv.addSchema({ ...spec, $id: 'spec' });

const compiled = new Map<string, ValidateFunction>();

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function resolveResponsePointer(path: string, method: string, status: string): string {
  const responses = spec.paths[path]?.[method]?.responses;
  if (!responses) throw new Error(`the spec has no operation ${method.toUpperCase()} ${path}`);
  const key = responses[status] ? status : responses.default ? 'default' : undefined;
  if (!key) throw new Error(`${method.toUpperCase()} ${path} does not document status ${status}`);
  const response = responses[key];
  if (response?.$ref) return response.$ref.replace(/^#/, '');
  return `/paths/${escapePointer(path)}/${method}/responses/${key}`;
}

/** The result of checking one response. */
export interface ResponseCheck {
  valid: boolean;
  errors: string[];
}

/**
 * Checks that a response's status is documented for the operation and its JSON body matches the schema.
 * `path` is the spec's path template (e.g. `/byok/{id}`), without the `/api/v1` prefix.
 */
export function checkResponse(options: { path: string; method: string; status: number; contentType: string; body: unknown }): ResponseCheck {
  const method = options.method.toLowerCase();
  const pointer = resolveResponsePointer(options.path, method, String(options.status));
  const mediaType = options.contentType.split(';')[0]?.trim() ?? '';
  if (options.status === 204) return { valid: true, errors: [] };
  const key = `${pointer}|${mediaType}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec#${pointer}/content/${escapePointer(mediaType)}/schema` });
    compiled.set(key, validate);
  }
  const valid = validate(options.body) as boolean;
  return { valid, errors: (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`) };
}

/** Checks a JSON body against a named schema of `components.schemas` (for answers no operation documents, like a 405). */
export function checkComponentSchema(name: string, body: unknown): ResponseCheck {
  const key = `#/components/schemas/${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec${key}` });
    compiled.set(key, validate);
  }
  const valid = validate(body) as boolean;
  return { valid, errors: (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`) };
}

/** The spec's paths (templates without the `/api/v1` prefix) and the methods each one documents, upper case. */
export function documentedMethods(): Map<string, string[]> {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return new Map(Object.entries(spec.paths).map(([path, item]) => [path, Object.keys(item).filter((key) => methods.includes(key)).map((key) => key.toUpperCase())]));
}
