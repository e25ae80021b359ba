/**
 * The bearer security handler the OpenAPI validator calls for every operation that declares `bearer`
 * security. It resolves the key to its caller and enforces the key kind the operation declares with
 * `x-switchboard-key-kind`, so which operations need a management key is stated in the spec, not here.
 */
import type { Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '#src/errors.ts';
import type { KeyAuthenticator } from '#src/http/caller.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

interface OperationWithKeyKind {
  'x-switchboard-key-kind'?: 'management' | 'inference';
  tags?: string[];
}

/** Builds the validator's `bearer` security handler around a key authenticator. */
export function createBearerHandler(authenticate: KeyAuthenticator) {
  return async (req: Request): Promise<true> => {
    const header = req.headers.authorization;
    if (!header) throw new UnauthorizedError();
    const match = BEARER.exec(header);
    if (!match?.[1]) throw new UnauthorizedError('Invalid Authorization header: expected `Bearer <key>`');
    const caller = await authenticate(match[1]);
    if (!caller) throw new UnauthorizedError('Invalid API key');
    const operation = (req as Request & { openapi?: { schema?: OperationWithKeyKind } }).openapi?.schema;
    const required = operation?.['x-switchboard-key-kind'];
    if (required === 'management' && caller.kind !== 'management') throw new ForbiddenError();
    if (required === 'inference' && caller.kind !== 'inference') {
      throw new ForbiddenError('Management keys cannot create messages; use an inference key');
    }
    (req.res as Response).locals.caller = caller;
    return true;
  };
}
