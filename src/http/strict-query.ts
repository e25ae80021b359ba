/**
 * Query parameters read as written. express-openapi-validator converts every query value with ajv's type
 * coercion, whatever `coerceTypes` says (it applies that option to bodies only), and ajv reads a string as a
 * number when JavaScript's `Number()` does: `limit=0x10` was 16, `limit=1e2` 100, `limit=%2010` (a leading
 * space) and `limit=10.0` 10, while `limit=abc` was a 400. A client that sent `0x10` meant something the
 * gateway did not do, so a value of an integer, number or boolean parameter must be written plainly, and a
 * parameter written in bracket form (`limit[a]=1`, `offset[]=1`), which the validator read as an object or a
 * list, is named as such rather than as a wrong type or a repeat. Runs right before the validator's request
 * validation, on the full chain and on the hot operation's fast path alike.
 */
import type { Request, RequestHandler } from 'express';
import { BadRequestError, type ErrorDetail } from '#src/errors.ts';
import { deref } from '#src/http/spec-walk.ts';
import { placeName } from '#src/http/validation-problem.ts';

/** The scalar types a query value is converted to; a string parameter is taken as sent. */
export type QueryScalarType = 'integer' | 'number' | 'boolean';

/** A query parameter of an operation, as far as this check reads it. */
export interface QueryParameter {
  name: string;
  type: QueryScalarType | undefined;
}

// Decimal digits only: what every client library writes for an integer. Leading zeros read the same in
// decimal, so they pass; the schema's minimum and maximum still apply after the conversion.
const INTEGER = /^-?[0-9]+$/;
// JSON's number grammar, leading zeros allowed as above.
const NUMBER = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const BOOLEAN = /^(true|false)$/;
// `[` percent-encoded, which the query parser decodes.
const BRACKET_ENCODED = /%5b/i;

const WRITTEN: Record<QueryScalarType, { pattern: RegExp; problem: string }> = {
  integer: { pattern: INTEGER, problem: 'must be an integer written in decimal digits, such as 20 (no exponent, decimal point, hexadecimal, sign `+` or spaces)' },
  number: { pattern: NUMBER, problem: 'must be a number written in decimal, such as 0.5 or 2e-3 (no hexadecimal, sign `+` or spaces)' },
  boolean: { pattern: BOOLEAN, problem: 'must be true or false' },
};

function detail(name: string, problem: string): ErrorDetail {
  return { path: `/query/${name}`, message: problem };
}

/**
 * A declared parameter written in bracket form (`limit[a]=1`, `offset[]=1`) in a query as express parses it
 * (the simple parser keeps a bracketed name as written), or undefined. An undeclared name is left to the
 * validator, which says it is not a parameter of the operation. Pure.
 */
export function bracketForm(query: Readonly<Record<string, unknown>>, parameters: readonly QueryParameter[]): ErrorDetail | undefined {
  for (const key of Object.keys(query)) {
    const bracket = key.indexOf('[');
    if (bracket <= 0) continue;
    const name = key.slice(0, bracket);
    if (parameters.some((parameter) => parameter.name === name)) {
      return detail(name, `is written in bracket form (\`${name}[…]\`), which this API does not read: give it as \`${name}=<value>\``);
    }
  }
  return undefined;
}

/**
 * The first value of an integer, number or boolean parameter not written plainly, or undefined. `query` holds
 * the values as sent (a list for a repeated name, which the validator refuses itself). Pure.
 */
export function looseValue(query: Readonly<Record<string, unknown>>, parameters: readonly QueryParameter[]): ErrorDetail | undefined {
  for (const parameter of parameters) {
    const value = parameter.type === undefined ? undefined : query[parameter.name];
    if (typeof value !== 'string' || value === '' || parameter.type === undefined) continue;
    const written = WRITTEN[parameter.type];
    if (!written.pattern.test(value)) return detail(parameter.name, written.problem);
  }
  return undefined;
}

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The node itself, or the schema its local `$ref`s name (spec-walk's `deref`, the one reader of the bundle's refs). */
function resolved(node: unknown): Node | undefined {
  return isNode(node) ? deref({ segments: [], pointer: '', schema: node })?.schema : undefined;
}

function scalarType(schema: Node | undefined): QueryScalarType | undefined {
  const types = Array.isArray(schema?.type) ? (schema.type as unknown[]) : [schema?.type];
  return (['integer', 'number', 'boolean'] as const).find((type) => types.includes(type));
}

/** The query parameters an operation object of the spec declares (its own list; the spec has no path-level ones). */
export function queryParametersOf(operation: { parameters?: unknown } | undefined): QueryParameter[] {
  const listed = Array.isArray(operation?.parameters) ? (operation.parameters as unknown[]) : [];
  return listed.flatMap((entry) => {
    const parameter = resolved(entry);
    if (parameter?.in !== 'query' || typeof parameter.name !== 'string') return [];
    return [{ name: parameter.name, type: scalarType(resolved(parameter.schema)) }];
  });
}

interface OperationRequest extends Request {
  openapi?: { schema?: { parameters?: unknown } };
}

function refusal(problem: ErrorDetail): BadRequestError {
  return new BadRequestError(`${placeName(problem.path ?? '')}: ${problem.message}`, { details: [problem] });
}

/**
 * Wraps the validator's request validation. A parameter in bracket form is refused before it (the validator
 * would call it a wrong type or a repeat); a value the validator accepted only by converting it loosely is
 * refused after it, so that what the validator refuses itself (`abc`, a repeat, an unencoded `+`) keeps its
 * own message. The operation's parameter list is read once per operation object (one per route).
 */
export function withStrictQuery(validate: RequestHandler): RequestHandler {
  const known = new WeakMap<object, { parameters: QueryParameter[]; typed: boolean }>();
  return (req: OperationRequest, res, next) => {
    const operation = req.openapi?.schema;
    const mark = req.url.indexOf('?');
    // A URL without a query string is the hot path's common case: nothing to read.
    if (!operation || mark < 0) {
      validate(req, res, next);
      return;
    }
    let entry = known.get(operation);
    if (entry === undefined) {
      const parameters = queryParametersOf(operation);
      entry = { parameters, typed: parameters.some((parameter) => parameter.type !== undefined) };
      known.set(operation, entry);
    }
    // Claude Code's `?beta=true` on every request: no typed parameter, no bracket, so the query (which
    // express parses again on each read) is not read here at all.
    const raw = req.url.slice(mark + 1);
    if (!entry.typed && !raw.includes('[') && !BRACKET_ENCODED.test(raw)) {
      validate(req, res, next);
      return;
    }
    const { parameters } = entry;
    // The values as sent: the validator converts them in place.
    const sent = { ...(req.query as Record<string, unknown>) };
    const bracketed = bracketForm(sent, parameters);
    if (bracketed) {
      next(refusal(bracketed));
      return;
    }
    validate(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      const loose = looseValue(sent, parameters);
      next(loose ? refusal(loose) : undefined);
    });
  };
}
