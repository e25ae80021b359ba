/**
 * Request (and, in tests, response) validation against the bundled spec, with bearer security handled by
 * the spec's own `security` declarations. The spec file is the validator's only input.
 */
import { fileURLToPath } from 'node:url';
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';
import type { KeyAuthenticator } from '#src/http/caller.ts';
import { createBearerHandler } from '#src/http/authenticate.ts';

/** The bundled spec produced by `npm run generate`. */
export const BUNDLED_SPEC_PATH = fileURLToPath(new URL('../../generated/openapi.yaml', import.meta.url));

/** Options of the validator middleware. */
export interface ValidatorOptions {
  authenticate: KeyAuthenticator;
  /** Validate every JSON response against the spec too; on in tests, off in production (it costs per request). */
  validateResponses: boolean;
}

/** The validator middleware chain: route matching, security, request validation, optional response validation. */
export function createOpenApiValidator(options: ValidatorOptions): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: BUNDLED_SPEC_PATH,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, removeAdditional: false },
    validateResponses: options.validateResponses ? { removeAdditional: false, coerceTypes: false } : false,
    validateSecurity: { handlers: { bearer: createBearerHandler(options.authenticate) } },
    validateFormats: true,
  }) as RequestHandler[];
}
