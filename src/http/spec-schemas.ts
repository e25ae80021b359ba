/**
 * The bundled spec's schemas for checks made outside the request validator: a plugin entry of the
 * configuration file, and the one branch of a union a refused request chose by its `type` (or `id`, `role`).
 * Nothing is read or compiled before the first such check, so start-up and idle memory do not pay for it; the
 * document and each compiled schema are then kept, keyed by JSON pointer, which only the spec provides.
 */
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ErrorDetail } from '#src/errors.ts';
import { readSpec } from '#src/http/bundled-spec.ts';

const SPEC_ID = 'switchboard-spec';

type AddFormats = (ajv: Ajv2020, options: { mode: 'fast' }) => unknown;

let document: Record<string, unknown> | undefined;
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The bundled spec, parsed once on first use; callers must not change it. */
export function specDocument(): Readonly<Record<string, unknown>> {
  document ??= readSpec();
  return document;
}

// The formats the request validator checks: express-openapi-validator adds ajv-formats in its `fast` mode,
// loaded here from the validator's own dependencies so both agree on `uri`, `uuid` and `date-time`.
function addValidatorFormats(instance: Ajv2020): void {
  const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const module = validatorRequire('ajv-formats') as AddFormats | { default: AddFormats };
  (typeof module === 'function' ? module : module.default)(instance, { mode: 'fast' });
}

function specAjv(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addValidatorFormats(ajv);
  ajv.addSchema({ ...specDocument(), $id: SPEC_ID });
  return ajv;
}

/** The compiled schema at `pointer` in the spec (`/components/schemas/Plugin`, URI-escaped segments). */
export function specValidator(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = specAjv().compile({ $ref: `${SPEC_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/**
 * ajv's complaints as express-openapi-validator words them for a client: a missing or extra property is
 * reported at the property's own path, and an enum lists its values.
 * @see ajvErrorsToValidatorError and augmentAjvErrors in express-openapi-validator's middlewares/util.js
 */
export function toErrorDetails(errors: readonly ErrorObject[], prefix = ''): ErrorDetail[] {
  return errors.map((error) => {
    const params = error.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
    const property = params.missingProperty ?? params.additionalProperty;
    const path = `${prefix}${error.instancePath}${property !== undefined ? `/${property}` : ''}`;
    const message = error.message ?? 'is invalid';
    return { path, message: error.keyword === 'enum' && params.allowedValues ? `${message}: ${params.allowedValues.join(', ')}` : message };
  });
}
